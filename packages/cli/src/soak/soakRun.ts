/**
 * One soak run: a simulator over real HTTP seeded with pods, a library's informer synced to it,
 * then churn and every fault for a while, then quiet, then a poll until the informer's store and
 * every handler's view equal the server (key, UID, resourceVersion) or the deadline passes.
 */
import { firstValueFrom, from, lastValueFrom, map, race, tap, timer } from 'rxjs';
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer, type LoadCounters } from '@rxinformer/apiserver-sim';
import { describeDiff, diffViews, identities, isEqualView, type IdentityMap } from './convergence.ts';
import { clearFaults, planFaults, runFaultPlan, type AppliedFault, type FaultKind } from './faultPlan.ts';
import type { ClientStats, SoakClient, SoakLibrary } from './soakClient.ts';

/** Options of `soakRun`. Times in ms. */
export interface SoakRunOptions {
  /** Seed of the simulator, the load and the fault plan. */
  seed: number;
  /** Pods seeded before the informer starts. Default 2000. */
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
  faults: Partial<Record<FaultKind, { applied: number; watchesHit?: number; unused?: number }>>;
  /** What the load generator did. */
  churn: LoadCounters;
  /** Pods on the server at the end. */
  serverObjects: number;
  stats: ClientStats;
}

const TOKEN = 'soak-token';

/** Polls `check` every `pollMs` until it returns true or `timeoutMs` passes; resolves whether it did. */
export async function pollUntil(check: () => boolean, timeoutMs: number, pollMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (performance.now() >= deadline) return false;
    await firstValueFrom(timer(pollMs));
  }
}

/** The identities of every pod on the server. */
export function serverPods(sim: ApiServer): IdentityMap {
  return identities(sim.storage.list('pods'));
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
 * Runs one soak of the client `makeClient` builds. Every server and client is closed at the end,
 * also on failure; a failure becomes the result's `failure`, never an exception.
 *
 * @example
 * const result = await soakRun((sim) => rxinformerClient(sim), { seed: 1, objects: 200, chaosMs: 3000 });
 * console.log(result.converged, result.convergeMs, result.uidViolations);
 */
export async function soakRun(makeClient: (sim: ApiServer) => SoakClient, options: SoakRunOptions): Promise<SoakRunResult> {
  const o = { ...DEFAULTS, ...options };
  const sim = await startApiServer({ port: 0, seed: o.seed, auth: { token: TOKEN }, bookmarkIntervalMs: 1000 });
  const namespaces = Array.from({ length: o.namespaces }, (_, i) => `soak-${i}`);
  for (const name of namespaces) sim.storage.create('namespaces', { metadata: { name } });
  const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces, seed: o.seed });
  load.seed(o.objects);
  let client: SoakClient | undefined;
  const tally = faultTally();
  const result = (fields: Partial<SoakRunResult>): SoakRunResult => {
    const views = client?.views ?? [];
    return {
      library: client?.library ?? 'rxinformer',
      seed: o.seed,
      converged: false,
      uidViolations: views.reduce((n, v) => n + v.uidViolations, 0),
      handlerEvents: views.reduce((n, v) => n + v.events, 0),
      faultsApplied: tally.applied(),
      faults: tally.faults,
      churn: { ...load.counters },
      serverObjects: sim.storage.list('pods').length,
      stats: client?.stats() ?? { relists: 0, errorsSeen: 0, errorKinds: {}, restarts: 0, handlerErrors: 0 },
      ...fields,
    };
  };
  try {
    client = makeClient(sim);
    const c = client;
    const started = await firstValueFrom(race(from(c.start()).pipe(map(() => true)), timer(o.syncTimeoutMs).pipe(map(() => false))));
    const synced = started && (await pollUntil(() => divergence(serverPods(sim), c) === undefined, o.syncTimeoutMs, o.pollMs));
    if (!synced) return result({ failure: `initial sync not done in ${o.syncTimeoutMs} ms: ${divergence(serverPods(sim), c)}` });

    const plan = planFaults({ seed: o.seed, durationMs: o.chaosMs, token: TOKEN });
    const churn = load.churn({ ratePerSecond: o.churnPerSecond });
    await Promise.all([
      lastValueFrom(runFaultPlan(sim, plan).pipe(tap(tally.count)), { defaultValue: undefined }),
      firstValueFrom(timer(o.chaosMs)),
    ]);
    churn.stop();
    clearFaults(sim, TOKEN);

    const quiet = performance.now();
    const expected = serverPods(sim); // nothing changes the server from here on
    const converged = await pollUntil(() => divergence(expected, c) === undefined, o.convergeTimeoutMs, o.pollMs);
    if (!converged) return result({ failure: `not converged ${o.convergeTimeoutMs} ms after the chaos: ${divergence(expected, c)}` });
    return result({ converged: true, convergeMs: Math.round(performance.now() - quiet) });
  } catch (error) {
    return result({ failure: `run failed: ${error instanceof Error ? error.message : String(error)}` });
  } finally {
    await client?.close().catch(() => undefined);
    await sim.close();
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
