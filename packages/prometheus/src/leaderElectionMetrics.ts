/**
 * client-go's leader-election metric, `leader_election_master_status{name}` (1 while leading, 0
 * otherwise), fed by any `isLeader$` stream — core's `leaderElection()` has one.
 */
import { register as globalRegistry, type Gauge, type Registry } from 'prom-client';
import { isObservable, type Observable } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { collectedGauge, once, rowsOf } from './collected.ts';
import { addSource, metricSet } from './metricSet.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** The names of the leader-election metrics. */
export const LEADER_ELECTION_METRICS = ['leader_election_master_status'] as const;

/** Options of `leaderElectionMetrics`. */
export interface LeaderElectionMetricsOptions {
  /** The `name` label: the Lease's name. Required, unique per registry. */
  name: string;
  /** Where the metric is registered. Default: prom-client's global `register`. */
  registry?: Registry;
}

/**
 * What the metric reads "leading?" from: an election — core's `LeaderElection`, or anything with an
 * `isLeader$` — whose `isLeader$` is read (a `LeaderElection` is itself an Observable of states, not
 * of booleans), or an `Observable<boolean>` itself. Observables of anything else are refused.
 */
export type ObservedElection =
  | {
      /** `true` while leading, `false` otherwise. */
      readonly isLeader$: Observable<boolean>;
    }
  | Observable<boolean>;

/**
 * Registers `leader_election_master_status{name}` for an election: 1 while its `isLeader$` last said
 * true, 0 otherwise (also before its first value and after it completes).
 *
 * Caveat: this subscribes to `isLeader$`; core's `leaderElection()` runs while it has subscribers,
 * so the metric keeps the election running until `unregister()`.
 *
 * @example
 * const election = leaderElection({ client, namespace: 'kube-system', name: 'my-controller', identity: podName });
 * leaderElectionMetrics(election, { name: 'my-controller' });
 */
export function leaderElectionMetrics(election: ObservedElection, options: LeaderElectionMetricsOptions): MetricsRegistration {
  const leading$ = leadingOf(election);
  if (!leading$) throw new InvalidOptionsError('leaderElectionMetrics needs an Observable<boolean> or an election with isLeader$');
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('leaderElectionMetrics needs options with a name');
  const registry = options.registry ?? globalRegistry;
  const set = metricSet<{ status: Gauge }, { leading: boolean }>(
    registry,
    'leaderElection',
    (sources) => ({
      status: collectedGauge(
        {
          name: 'leader_election_master_status',
          help: 'Whether this process leads the election of the Lease `name`: 1 leading, 0 following.',
          labelNames: ['name'],
          registers: [registry],
        },
        rowsOf(sources, 'name', (s) => (s.leading ? 1 : 0)),
      ),
    }),
    LEADER_ELECTION_METRICS,
  );
  const source = { leading: false };
  const remove = addSource(set, options.name, 'name', 'leader_election_master_status', source);
  const sub = leading$.subscribe({
    next: (leading) => {
      source.leading = leading === true;
    },
    error: () => {
      source.leading = false;
    },
    complete: () => {
      source.leading = false;
    },
  });
  return {
    unregister: once(() => {
      sub.unsubscribe();
      remove();
    }),
  };
}

/** The stream of "leading?": an election's `isLeader$` first (the election's own values are states), else the Observable itself. */
function leadingOf(election: ObservedElection): Observable<boolean> | undefined {
  const flag: unknown = (election as { isLeader$?: unknown } | null | undefined)?.isLeader$;
  if (isObservable(flag)) return flag as Observable<boolean>;
  return isObservable(election) ? election : undefined;
}
