/**
 * Replicas of an example as real processes (the replicator's `main.ts`, the pod reaper's): on the
 * repository's Node 22 from source, stdout read line by line, stopped with SIGTERM or killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');
const main = fileURLToPath(new URL('../main.ts', import.meta.url));
/** Fast Lease timing (a killed leader's Lease expires after 3 s). */
export const FAST_LEASE = ['--lease-duration-ms', '3000', '--renew-deadline-ms', '2000', '--retry-period-ms', '300'];
const running = new Set<ChildProcess>();

/** A replica process. */
export interface Replica {
  readonly id: string;
  readonly child: ChildProcess;
  /** Every line it printed so far, without its timestamp and id. */
  readonly lines: string[];
  /** Resolves with its exit code (null when killed) once it exited. */
  readonly exited: Promise<number | null>;
  /** Resolves once it printed a line matching `re` (before or after the call). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
}

/** Starts the replicator's `main.ts` with the fast timing and ports picked by the system, then `args` (the last of an option wins). */
export function startReplica(id: string, kubeconfig: string, args: readonly string[] = []): Replica {
  return startExample(main, id, kubeconfig, [...FAST_LEASE, '--metrics-port', '0', '--probes-port', '0', ...args]);
}

/** Starts the example program `program --kubeconfig kubeconfig --id id …args`. */
export function startExample(program: string, id: string, kubeconfig: string, args: readonly string[]): Replica {
  const { KUBECONFIG: _ignored, ...env } = process.env;
  const child = spawn(node, ['--conditions=@rxinformer/source', program, '--kubeconfig', kubeconfig, '--id', id, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    for (const line of parts) lines.push(line.replace(/^\S+ [^:]+: /, ''));
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let dead = false;
  void exited.then(() => (dead = true));
  const waitFor = async (re: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!lines.some((l) => re.test(l))) {
      if (dead || Date.now() > deadline)
        throw new Error(`${id} ${dead ? 'exited' : 'timed out'} before printing ${re}:\n${lines.join('\n')}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { id, child, lines, exited, waitFor };
}

/** Stops `replica` with SIGTERM; resolves with its exit code. */
export function stopReplica(replica: Replica): Promise<number | null> {
  replica.child.kill('SIGTERM');
  return replica.exited;
}

/** Kills every replica still running (for `afterAll`). */
export function killAll(): void {
  for (const c of running) c.kill('SIGKILL');
}

/** Polls `check` every 100 ms until it resolves true; rejects after `timeoutMs` naming `what`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
