/**
 * The watchdog each process of a test environment runs under: `node reaper.js LOG CLEANUP -- BIN ARGS…`.
 * It starts BIN with its output in LOG and stays until BIN exits (then exits with its code).
 *
 * Its parent starts it in a session of its own (`setsid`), so a signal to the parent's process
 * group — Ctrl-C in a terminal, `timeout`, `kill -- -PGID`, even SIGKILL — reaches neither it nor
 * BIN (which stays in its group). Its stdin is a pipe from the parent: when that pipe ends, as it
 * does however the parent ends (exit, crash, any signal, SIGKILL), it kills BIN with SIGKILL and,
 * once BIN is gone, removes the CLEANUP folder (`-` for none). The parent's signals stay the
 * parent's: nothing here changes how its own program reacts to them.
 *
 * Signals sent to it directly: SIGTERM (or SIGINT, SIGHUP) stops BIN (SIGTERM, then SIGKILL after
 * 5 s) and keeps the folder, which the parent removes; SIGUSR2 kills BIN at once with SIGKILL, as a
 * crash would.
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
let parentGone = false;

/** Stops BIN gracefully, as the parent asked. */
function stop(): void {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 5000).unref();
}

/** The parent is gone, whatever it was doing: nobody waits for a graceful end, BIN's data goes with the folder. */
function orphaned(): void {
  if (parentGone) return;
  parentGone = stopping = true;
  child.kill('SIGKILL');
}

/** Removes the folder; a file a dying binary wrote meanwhile is retried over, not left. */
function removeFolder(): void {
  if (cleanup === '-') return;
  try {
    rmSync(cleanup, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  } catch (error) {
    process.stderr.write(`rxinformer-envtest: cannot remove ${cleanup}: ${(error as Error).message}\n`);
  }
}

child.once('error', (error) => {
  process.stderr.write(`cannot start ${command}: ${error.message}\n`);
  if (parentGone) removeFolder();
  process.exit(127);
});
child.once('exit', (code, signal) => {
  if (parentGone) removeFolder();
  process.exit(code ?? (signal ? 128 + 9 : 1));
});
process.stdin.on('data', () => undefined);
process.stdin.once('end', orphaned);
process.stdin.once('error', orphaned);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGHUP', stop);
process.once('SIGUSR2', () => {
  stopping = true;
  child.kill('SIGKILL'); // a crash, on request
});
