/**
 * A process of the test environment (etcd, kube-apiserver) started under the reaper watchdog, in a
 * session of its own, so it dies with its parent and with nothing else; its output goes to a log
 * file; `exited` tells when and how it ended.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ProcessExitedError } from './errors.ts';
import { tailOf } from './logTail.ts';

/** How a process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** A running process of the environment. */
export interface ManagedProcess {
  /** `etcd` or `kube-apiserver`. */
  readonly name: string;
  /** Where its output goes. */
  readonly logFile: string;
  /** Resolves when it has exited, whatever the reason. */
  readonly exited: Promise<ProcessExit>;
  /** Whether it has exited. */
  readonly running: boolean;
  /** The error to report when it exited on its own (code, signal and the log's last lines). */
  exitError(exit: ProcessExit): ProcessExitedError;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Kills it at once with SIGKILL, as a crash would, and resolves once it has exited. */
  kill(): Promise<void>;
}

const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const REAPER = fileURLToPath(new URL(`./reaper${ext}`, import.meta.url));

/**
 * Starts `command args` under the reaper with its output appended to `logFile`. `cleanupDir` is
 * removed by the reaper if this process dies without stopping it.
 */
export function startManagedProcess(name: string, command: string, args: string[], logFile: string, cleanupDir?: string): ManagedProcess {
  const { NODE_OPTIONS: _, ...env } = process.env;
  // A session of its own: a signal to this process's group (Ctrl-C, `timeout`) reaches neither the
  // reaper nor the binary, so this program's own handlers decide, and when it dies of the signal the
  // reaper, still alive, sees its stdin end and removes the folder.
  const reaper = spawn(process.execPath, [REAPER, logFile, cleanupDir ?? '-', '--', command, ...args], {
    stdio: ['pipe', 'ignore', 'inherit'],
    env,
    detached: true,
  });
  let running = true;
  const exited = new Promise<ProcessExit>((resolve) => {
    reaper.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
  });
  // When this process exits, however it exits, the reaper's stdin ends: it kills the binary and removes the folder.
  return {
    name,
    logFile,
    exited,
    get running() {
      return running;
    },
    exitError: (exit) => new ProcessExitedError(name, exit.code, exit.signal, logFile, tailOf(logFile)),
    stop: async () => {
      if (running) reaper.kill('SIGTERM');
      await exited;
    },
    kill: async () => {
      if (running) reaper.kill('SIGUSR2');
      await exited;
    },
  };
}
