/**
 * Timers and backoff shared by the reflector, the workqueue and leader election.
 */
export { nextBackoff, resolveBackoff, backoffSuccess } from './backoff.ts';
export type { BackoffOptions, BackoffState, NextBackoffOptions } from './backoff.ts';
