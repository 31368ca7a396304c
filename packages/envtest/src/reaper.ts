/**
 * The watchdog each process of a test environment runs under: `node reaper.js LOG CLEANUP -- BIN ARGS…`.
 * It starts BIN with its output in LOG and stays until BIN exits (then exits with its code). When
 * its parent goes away — its stdin, a pipe from the parent, ends, as it does when the parent exits
 * or is killed, even with SIGKILL, or on SIGHUP — it kills BIN and removes the CLEANUP folder (`-` for none); on
 * SIGTERM/SIGINT it stops BIN (SIGTERM, then SIGKILL after 5 s); SIGUSR2
 * kills BIN at once with SIGKILL, as a crash would. So no etcd or kube-apiserver outlives the test
 * run that started it.
 */
import { spawn } from 'node:child_process';
import { openSync, rmSync } from 'node:fs';

const [log, cleanup, separator, command, ...args] = process.argv.slice(2);
if (separator !== '--' || !command) {
  process.stderr.write('usage: reaper LOG CLEANUP -- BIN [ARGS...]\n');
  process.exit(2);
}
const out = openSync(log, 'a');
const child = spawn(command, args, { stdio: ['ignore', out, out] });
let stopping = false;
let orphaned = false;

function stop(parentGone: boolean): void {
  if (stopping) return;
  stopping = true;
  orphaned = parentGone;
  // Orphaned, nobody waits for a graceful end: the binary's data goes with the folder.
  child.kill(orphaned ? 'SIGKILL' : 'SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 5000).unref();
}

child.once('error', (error) => {
  process.stderr.write(`cannot start ${command}: ${error.message}\n`);
  process.exit(127);
});
child.once('exit', (code, signal) => {
  if (orphaned && cleanup !== '-') rmSync(cleanup, { recursive: true, force: true });
  process.exit(code ?? (signal ? 128 + 9 : 1));
});
process.stdin.on('data', () => undefined);
process.stdin.once('end', () => stop(true));
process.stdin.once('error', () => stop(true));
// The terminal went away (a shell's background job at logout): as the parent's end. Without a
// handler SIGHUP would end this watchdog alone and leave the binary running under init.
process.once('SIGHUP', () => stop(true));
process.once('SIGTERM', () => stop(false));
process.once('SIGINT', () => stop(false));
process.once('SIGUSR2', () => {
  stopping = true;
  child.kill('SIGKILL'); // a crash, on request
});
