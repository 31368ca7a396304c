/**
 * Leader election on coordination.k8s.io/v1 Leases, and work that runs only while leading.
 *
 * @module @rxinformer/core/leader-election
 */
export { InvalidLeaseError, LEASE_INSTANCE_ANNOTATION, LEASE_RELEASED, leaseRecord, microTime } from './lease.ts';
export type { Lease, LeaseRecord, LeaseSpec } from './lease.ts';
export { leaseClient, leasesPath } from './leaseClient.ts';
export type { LeaseClient } from './leaseClient.ts';
export { DEFAULT_LEASE_TIMING, DuplicateIdentityError, resolveLeaseTiming } from './leaderElectionRules.ts';
export type { LeaseTiming } from './leaderElectionRules.ts';
export { monotonicScheduler } from './clocks.ts';
export type { LeaseClocks } from './clocks.ts';
export { leaderElection } from './leaderElection.ts';
export type { LeaderElection, LeaderElectionOptions, LeaderElectionState } from './leaderElection.ts';
export { whileLeading } from './whileLeading.ts';
export type { LeaderWork, StoppableWork } from './whileLeading.ts';
