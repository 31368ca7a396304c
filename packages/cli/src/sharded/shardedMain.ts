/**
 * `rxinformer demo-sharded --replicas 3 --objects 3000 [--server real | --kubeconfig FILE] [--json]`
 * (`npm run demo:sharded --` in the repository): the multi-process demonstration of sharding and
 * leader election against the simulator, a real kube-apiserver, or any server. Exit code 0 when no
 * key was reconciled by two replicas at once, every object was reconciled, each replica's shard was
 * what the server answers its selector with, and there were never two leaders; 1 otherwise; 2 on a
 * bad command line.
 */
import { InvalidOptionsError } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import { runShardedDemo, type ShardedDemoOptions, type ShardedDemoResult } from './shardedDemo.ts';

/** The usage text of `rxinformer demo-sharded --help`. */
export const SHARDED_USAGE = `rxinformer demo-sharded — replicas sharing ConfigMaps on Leases, one killed, one added; then leader election

  --server sim|real       the simulator in this process (default), or etcd and kube-apiserver
                          started for the demo (@rxinformer/envtest: \`npx rxinformer-envtest build\` once)
  --kubeconfig FILE       run against the server of FILE's current context instead, in a namespace
                          of the demo's own (its user needs a bearer token for the Lease fault)
  --replicas N            replica processes (default 3)
  --objects N             ConfigMaps to reconcile (default 3000)
  --slots N               slots of the hash space, a power of two (default 256)
  --concurrency N         reconciles in parallel per replica (default 4)
  --lease-duration-ms N   lease duration (default 15000, client-go's; each lease time at most
                          2147483647, what one timer holds)
  --renew-deadline-ms N   renew deadline (default 10000)
  --retry-period-ms N     retry period (default 2000)
  --no-shard-selector     start the server without the ShardedListAndWatch gate (it ignores shardSelector)
  --no-leader             skip the leader-elected part
  --metrics-port N        each replica serves /metrics (Prometheus), /readyz and /healthz on
                          127.0.0.1: the first at N, the next ones at N+1, N+2… (0: any free port)
  --json                  print the figures as JSON`;

/** A command line the demo cannot run with. */
export class ShardedArgsError extends Error {
  /** Always `ShardedArgsError`: set as a string, so it survives minification. */
  override readonly name: string = 'ShardedArgsError';
}

/** A lease time, refused past what one timer holds (2147483647 ms), as leader election refuses it. */
function leaseTime(flag: string, ms: number): void {
  try {
    checkDuration(flag, ms, ms, { max: 'timer' });
  } catch (e) {
    throw e instanceof InvalidOptionsError ? new ShardedArgsError(e.message) : e;
  }
}

/** Parses the demo's command line. */
export function parseShardedArgs(argv: readonly string[]): { options: ShardedDemoOptions; json: boolean; help: boolean } {
  const options: ShardedDemoOptions = {};
  let json = false;
  let help = false;
  const numbers: Record<string, keyof ShardedDemoOptions> = {
    '--replicas': 'replicas',
    '--objects': 'objects',
    '--slots': 'slots',
    '--concurrency': 'concurrency',
    '--lease-duration-ms': 'leaseDurationMs',
    '--renew-deadline-ms': 'renewDeadlineMs',
    '--retry-period-ms': 'retryPeriodMs',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--help' || a === '-h') help = true;
    else if (a === '--no-shard-selector') options.shardSelector = false;
    else if (a === '--no-leader') options.leader = false;
    else if (a === '--server') {
      const v = argv[++i];
      if (v !== 'sim' && v !== 'real') throw new ShardedArgsError(`--server needs sim or real, got ${JSON.stringify(v)}`);
      options.server = v;
    } else if (a === '--kubeconfig') {
      const v = argv[++i];
      if (!v) throw new ShardedArgsError('--kubeconfig needs a file');
      options.kubeconfig = v;
    } else if (a === '--metrics-port') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0 || v > 65_535)
        throw new ShardedArgsError(`--metrics-port needs a port (0-65535), got ${JSON.stringify(argv[i])}`);
      options.metricsPort = v;
    } else if (a in numbers) {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new ShardedArgsError(`${a} needs a whole number >= 1, got ${JSON.stringify(argv[i])}`);
      if (a.endsWith('-ms')) leaseTime(a, v);
      (options as Record<string, number>)[numbers[a]] = v;
    } else throw new ShardedArgsError(`unknown option ${JSON.stringify(a)}\n\n${SHARDED_USAGE}`);
  }
  if (options.replicas !== undefined && options.replicas < 2) throw new ShardedArgsError('--replicas must be at least 2 (one is killed)');
  if (options.server !== undefined && options.kubeconfig !== undefined)
    throw new ShardedArgsError('--server and --kubeconfig exclude each other (--kubeconfig names the server)');
  return { options, json, help };
}

/**
 * True when the demo's figures show what must hold: every object reconciled, no overlap, never two
 * leaders, the leader stepped down before another took over, and — where the server honoured
 * `shardSelector` — each replica's shard what the server answers its selector with.
 */
export function demoPassed(r: ShardedDemoResult): boolean {
  const shards = Object.values(r.shards ?? {});
  const shardsHold = !r.shardSelector || shards.every((s) => s.subsetEqualsLocal && s.cached === s.localSubset);
  return r.reconciledAll && r.overlaps === 0 && shardsHold && (r.leaderOverlaps ?? 0) === 0 && (r.renewalFault?.steppedDownFirst ?? true);
}

/** Runs `rxinformer demo-sharded`; sets `process.exitCode`. */
export async function runShardedCommand(argv: readonly string[]): Promise<void> {
  let parsed: ReturnType<typeof parseShardedArgs>;
  try {
    parsed = parseShardedArgs(argv);
  } catch (e) {
    if (!(e instanceof ShardedArgsError)) throw e;
    console.error(e.message);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) return void console.log(SHARDED_USAGE);
  const result = await runShardedDemo({ ...parsed.options, onProgress: (line) => console.error(line) });
  console.log(parsed.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
  process.exitCode = demoPassed(result) ? 0 : 1;
}
