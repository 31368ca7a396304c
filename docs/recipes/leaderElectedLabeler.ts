/**
 * Recipe: a leader-elected controller. Several replicas run; the one holding the Lease runs the
 * pod labeler of the controller recipe, the others wait. The leader stops it when its renewals fail
 * (at the renew deadline, before the Lease can expire for others) and, on shutdown, releases the
 * Lease only once the controller has stopped, so a successor starts at once.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeApiClient } from '@rxinformer/client-node';
import { leaderElection, whileLeading, type LeaderElection } from '@rxinformer/core/leader-election';
import { startPodLabeler, type PodLabelerOptions } from './podLabeler.ts';

/** Options of `startLeaderElectedLabeler`: the labeler's, and who this replica is. */
export interface LeaderElectedLabelerOptions extends PodLabelerOptions {
  /** This replica's identity, unique per process (say, the pod name). Required. */
  identity: string;
  /** The Lease's namespace. Default: the labeled namespace. */
  leaseNamespace?: string;
  /** Lease timing for tests; client-go's defaults otherwise (15 s, 10 s, 2 s). */
  timing?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
}

/** A running replica. */
export interface LeaderElectedLabeler {
  /** The election: its state, `isLeader$`. */
  readonly election: LeaderElection;
  /** Stops the labeler if it runs, then releases the Lease. */
  stop(): Promise<void>;
}

/**
 * Starts one replica of the leader-elected pod labeler.
 *
 * @example
 * const replica = startLeaderElectedLabeler(kc, { namespace: 'shop', identity: process.env.POD_NAME! });
 * replica.election.isLeader$.subscribe((leading) => console.log(leading ? 'leading' : 'standing by'));
 * process.once('SIGTERM', () => void replica.stop());
 */
export function startLeaderElectedLabeler(kubeConfig: KubeConfig, options: LeaderElectedLabelerOptions): LeaderElectedLabeler {
  const { identity, leaseNamespace = options.namespace, timing, ...labeler } = options;
  const election = leaderElection({
    client: kubeApiClient(kubeConfig),
    namespace: leaseNamespace,
    name: 'pod-labeler',
    identity,
    ...timing,
  });
  // A new labeler (informers and all) for each term: nothing from an old term is trusted.
  const run = whileLeading(election, () => startPodLabeler(kubeConfig, labeler)).subscribe();
  return {
    election,
    stop: async () => {
      run.unsubscribe(); // the labeler stops; the election is left (and the Lease released) once it has
      await election.stop();
    },
  };
}
