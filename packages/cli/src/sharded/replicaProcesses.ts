/**
 * The demo's replica processes: spawned as `rxinformer demo-sharded-replica …` from the package's
 * entry script (source or dist alike, never the script that imported this one), their status lines
 * followed, killed with SIGKILL or stopped with SIGTERM. Every process is killed when this one exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ReplicaConfig } from './replica.ts';

/** A replica process and its latest status line. */
export interface ReplicaProcess {
  readonly identity: string;
  readonly child: ChildProcess;
  /** The last status it printed. */
  status: Record<string, unknown> | undefined;
  /** The URL of its `/metrics`, `/readyz` and `/healthz` once served (`metricsPort`). */
  endpoints: string | undefined;
  /** Resolves once it exited. */
  readonly exited: Promise<void>;
  /** True once it exited. */
  readonly dead: boolean;
}

/** Options of `spawnReplica`: the replica's command line, and where its stderr goes. */
export interface SpawnOptions extends Omit<ReplicaConfig, 'identity'> {
  /** The script that runs `rxinformer`. Default: the package's `main` beside this module (source or dist). */
  entry?: string;
  /** Where the replica's stderr goes. Default: inherited. */
  stderr?: 'inherit' | 'ignore';
  /** Extra Node flags (say `--expose-gc`, so status lines report the heap after a collection). Default: none. */
  nodeFlags?: string[];
  /** Called once the replica serves its endpoints (`metricsPort`), with their base URL. Default: none. */
  onEndpoints?: (identity: string, url: string) => void;
}

/** The `rxinformer` entry script next to this module: `main.ts` from source, `main.js` from dist. */
const MAIN = fileURLToPath(new URL(`../main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

const live = new Set<ChildProcess>();
let cleanupInstalled = false;

/** Starts one replica process. */
export function spawnReplica(identity: string, options: SpawnOptions): ReplicaProcess {
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    process.on('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  const args = [
    options.entry ?? MAIN,
    'demo-sharded-replica',
    ...['--url', options.url, '--identity', identity, '--mode', options.mode],
    ...(options.kubeconfig !== undefined ? ['--kubeconfig', options.kubeconfig] : []),
    ...(options.namespace !== undefined ? ['--namespace', options.namespace] : []),
    ...['--slots', String(options.slots), '--concurrency', String(options.concurrency)],
    ...['--heartbeat-ms', String(options.heartbeatMs), '--status-ms', String(options.statusMs)],
    ...(options.reconcile ? ['--reconcile', options.reconcile] : []),
    ...(options.leaseDurationMs !== undefined ? ['--lease-duration-ms', String(options.leaseDurationMs)] : []),
    ...(options.renewDeadlineMs !== undefined ? ['--renew-deadline-ms', String(options.renewDeadlineMs)] : []),
    ...(options.retryPeriodMs !== undefined ? ['--retry-period-ms', String(options.retryPeriodMs)] : []),
    ...(options.metricsPort !== undefined ? ['--metrics-port', String(options.metricsPort)] : []),
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...(options.nodeFlags ?? []), ...args], {
    stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
  });
  live.add(child);
  let dead = false;
  const replica: ReplicaProcess = {
    identity,
    child,
    status: undefined,
    endpoints: undefined,
    exited: new Promise<void>((resolve) =>
      child.once('exit', () => {
        dead = true;
        live.delete(child);
        resolve();
      }),
    ),
    get dead() {
      return dead;
    },
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.type === 'status') replica.status = parsed;
      else if (parsed.type === 'endpoints' && typeof parsed.url === 'string') {
        replica.endpoints = parsed.url;
        options.onEndpoints?.(identity, parsed.url);
      }
    } catch {
      /* not a status line */
    }
  });
  return replica;
}

/** Stops replicas with SIGTERM (they leave the ring, release their Lease) and waits for them, SIGKILL after `graceMs`. */
export async function stopReplicas(replicas: readonly ReplicaProcess[], graceMs = 20_000): Promise<void> {
  const running = replicas.filter((r) => !r.dead);
  for (const r of running) r.child.kill('SIGTERM');
  const timer = setTimeout(() => running.forEach((r) => r.child.kill('SIGKILL')), graceMs);
  await Promise.all(running.map((r) => r.exited));
  clearTimeout(timer);
}

/** Polls `check` every 20 ms; rejects with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
