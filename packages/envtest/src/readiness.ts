/** Waiting for a process of the environment to answer: free ports, and a probe polled until it holds. */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PortInUseError, StartTimeoutError } from './errors.ts';
import { tailOf } from './logTail.ts';
import type { ManagedProcess } from './managedProcess.ts';

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `probe` every 100 ms until it returns undefined (ready), the process exits (a
 * `PortInUseError` when its log says a port was taken, else its `ProcessExitedError`) or
 * `timeoutMs` passes (`StartTimeoutError` with the probe's last answer).
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  probe: () => Promise<string | undefined>,
  timeoutMs: number,
  ports: number[],
): Promise<void> {
  const started = performance.now();
  let last: string | undefined = 'no answer yet';
  let exit: Awaited<ManagedProcess['exited']> | undefined;
  void proc.exited.then((e) => (exit = e));
  for (;;) {
    if (exit) throw exitError(proc, exit, ports);
    last = await probe().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    if (last === undefined) return;
    if (exit) throw exitError(proc, exit, ports);
    if (performance.now() - started > timeoutMs) throw new StartTimeoutError(proc.name, performance.now() - started, proc.logFile, last);
    await sleep(100);
  }
}

function exitError(proc: ManagedProcess, exit: Awaited<ManagedProcess['exited']>, ports: number[]): Error {
  const log = tailOf(proc.logFile, 60);
  if (/address already in use/.test(log)) {
    const port = ports.find((p) => log.includes(`:${p}`)) ?? ports[0];
    return new PortInUseError(port, proc.name, proc.logFile);
  }
  return proc.exitError(exit);
}
