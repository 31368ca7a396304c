/**
 * One soak run: a server over real HTTP — the simulator, or a real kube-apiserver and etcd behind
 * the fault proxy — seeded with pods, a library's informer synced to it, then churn and every fault
 * for a while, then quiet, then a poll until the informer's store and every handler's view equal
 * the server's pods (key, UID, resourceVersion) or the deadline passes.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom, from, lastValueFrom, map, race, tap, timer } from 'rxjs';
import { createLoadGenerator, type LoadCounters } from '@rxinformer/apiserver-sim';
import { describeDiff, diffViews, isEqualView, type IdentityMap } from './convergence.ts';
import type { AppliedFault } from './faultSchedule.ts';
import { emptyStats, type ClientStats, type SoakClient, type SoakLibrary } from './soakClient.ts';
import { startSoakServer, type ServerKind } from './soakServer.ts';

/** Options of `soakRun`. Times in ms. */
export interface SoakRunOptions {
  /** Seed of the simulator, the load and the fault plan. */
  seed: number;
  /** The simulator, or a real kube-apiserver and etcd (`@rxinformer/envtest`'s binaries). Default `sim`. */
  server?: ServerKind;
  /** Pods seeded before the informer starts. Default 2000 (1000 on a real server). */
  objects?: number;
  /** Namespaces the pods spread over. Default 4. */
  namespaces?: number;
  /** Length of the churn-and-faults phase, in ms. Default 40 000. */
  chaosMs?: number;
  /** Changes per second during the chaos. Default 200. */
  churnPerSecond?: number;
  /** Deadline of the initial sync. Default 60 000. */
  syncTimeoutMs?: number;
  /** Deadline of convergence after the chaos stops. Default 60 000. */
  convergeTimeoutMs?: number;
  /** Interval of the convergence checks. Default 100. */
  pollMs?: number;
}

/** What one run found. */
export interface SoakRunResult {
  library: SoakLibrary;
  seed: number;
  server: ServerKind;
  /** How long the server took to start, in ms. */
  serverStartMs?: number;
  /** True when the store and every handler view equalled the server before the deadline. */
  converged: boolean;
  /** Time from the end of the chaos to convergence; undefined when it never converged. */
  convergeMs?: number;
  /** Why the run did not converge (or failed outright). */
  failure?: string;
  /** Handler updates whose new object had another UID than the old, over all handlers. */
  uidViolations: number;
  /** Notifications received by the handlers, all together. */
  handlerEvents: number;
  /** Fault actions applied during the chaos. */
  faultsApplied: number;
  /**
   * Per kind of fault: actions applied; for watch faults, the open watches they hit; `unused`, the
   * failures that met no request and watch faults that met no watch before their slot ended.
   */
  faults: Record<string, { applied: number; watchesHit?: number; unused?: number }>;
  /** What the load generator did. */
  churn: LoadCounters;
  /** Pods on the server at the end (at the last look). */
  serverObjects: number;
  stats: ClientStats;
}

/** Polls `check` every `pollMs` until it returns true or `timeoutMs` passes; resolves whether it did. */
export async function pollUntil(check: () => boolean, timeoutMs: number, pollMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (performance.now() >= deadline) return false;
    await firstValueFrom(timer(pollMs));
  }
}

/** Every difference between the server and the client's store and views, or undefined when equal. */
function divergence(expected: IdentityMap, client: SoakClient): string | undefined {
  const problems: string[] = [];
  const store = diffViews(expected, client.store());
  if (!isEqualView(store)) problems.push(`store: ${describeDiff(store)}`);
  for (const view of client.views) {
    const diff = diffViews(expected, view.identities());
    if (!isEqualView(diff)) problems.push(`handler ${view.name}: ${describeDiff(diff)}`);
  }
  return problems.length === 0 ? undefined : problems.join(' | ');
}

/**
 * Runs one soak of the client `makeClient` builds over the server's KubeConfig. Every server and
 * client is closed at the end, also on failure; a failure becomes the result's `failure`, never an
 * exception.
 *
 * @example
 * const result = await soakRun((kc) => rxinformerClient(kc), { seed: 1, objects: 200, chaosMs: 3000 });
 * console.log(result.converged, result.convergeMs, result.uidViolations);
 */
export async function soakRun(makeClient: (kc: KubeConfig) => SoakClient, options: SoakRunOptions): Promise<SoakRunResult> {
  const kind = options.server ?? 'sim';
  const o = { ...DEFAULTS, ...(kind === 'real' ? REAL_DEFAULTS : {}), ...options };
  const server = await startSoakServer(kind, o.seed);
  const namespaces = Array.from({ length: o.namespaces }, (_, i) => `soak-${i}`);
  const load = createLoadGenerator({ target: server.target, namespaces, seed: o.seed });
  let client: SoakClient | undefined;
  let expected: IdentityMap = new Map();
  const tally = faultTally();
  const result = (fields: Partial<SoakRunResult>): SoakRunResult => {
    const views = client?.views ?? [];
    return {
      library: client?.library ?? 'rxinformer',
      seed: o.seed,
      server: kind,
      serverStartMs: server.startMs,
      converged: false,
      uidViolations: views.reduce((n, v) => n + v.uidViolations, 0),
      handlerEvents: views.reduce((n, v) => n + v.events, 0),
      faultsApplied: tally.applied(),
      faults: tally.faults,
      churn: { ...load.counters },
      serverObjects: expected.size,
      stats: client?.stats() ?? emptyStats(),
      ...fields,
    };
  };
  const converges = (c: SoakClient, timeoutMs: number) => pollUntil(() => divergence(expected, c) === undefined, timeoutMs, o.pollMs);
  try {
    await server.createNamespaces(namespaces);
    load.seed(o.objects);
    await load.settled();
    client = makeClient(server.kubeConfig());
    const c = client;
    const started = await firstValueFrom(race(from(c.start()).pipe(map(() => true)), timer(o.syncTimeoutMs).pipe(map(() => false))));
    expected = await server.pods();
    if (!(started && (await converges(c, o.syncTimeoutMs))))
      return result({ failure: `initial sync not done in ${o.syncTimeoutMs} ms: ${divergence(expected, c)}` });

    const churn = load.churn({ ratePerSecond: o.churnPerSecond });
    await Promise.all([
      lastValueFrom(server.faults(o.seed, o.chaosMs).pipe(tap(tally.count)), { defaultValue: undefined }),
      firstValueFrom(timer(o.chaosMs)),
    ]);
    churn.stop();
    await load.settled();
    server.clearFaults();

    const quiet = performance.now();
    expected = await server.pods(); // nothing changes the server from here on
    if (!(await converges(c, o.convergeTimeoutMs)))
      return result({ failure: `not converged ${o.convergeTimeoutMs} ms after the chaos: ${divergence(expected, c)}` });
    return result({ converged: true, convergeMs: Math.round(performance.now() - quiet) });
  } catch (error) {
    return result({ failure: `run failed: ${error instanceof Error ? error.message : String(error)}` });
  } finally {
    await client?.close().catch(() => undefined);
    await server.close();
  }
}

/** The defaults of `SoakRunOptions`. */
const DEFAULTS = {
  objects: 2000,
  namespaces: 4,
  chaosMs: 40_000,
  churnPerSecond: 200,
  syncTimeoutMs: 60_000,
  convergeTimeoutMs: 60_000,
  pollMs: 100,
};

/** What differs on a real server: fewer pods and changes, as two shared cores write them. */
const REAL_DEFAULTS = { objects: 1000, churnPerSecond: 50 };

/** Counts the fault actions applied, per kind (`count` for each action as it is applied). */
function faultTally() {
  let applied = 0;
  const faults: SoakRunResult['faults'] = {};
  return {
    faults,
    applied: () => applied,
    count: ({ action, watchesHit, unused }: AppliedFault) => {
      const entry = (faults[action.fault] ??= { applied: 0 });
      if (action.endsSlot) {
        // Failures no request met and watch faults no watch met within the slot: not injected.
        if (unused) entry.unused = (entry.unused ?? 0) + unused;
        return;
      }
      applied++;
      entry.applied++;
      if (watchesHit !== undefined) entry.watchesHit = (entry.watchesHit ?? 0) + watchesHit;
    },
  };
}
