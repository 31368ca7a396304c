/**
 * The workqueue, its rate limiters and the controller loop over it.
 */
export { WorkQueue } from './workqueue.ts';
export type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueue.ts';
export { defaultControllerRateLimiter, exponentialFailureRateLimiter, maxOfRateLimiters, tokenBucketRateLimiter } from './rateLimiter.ts';
export type { ExponentialFailureOptions, RateLimiter, TokenBucketOptions } from './rateLimiter.ts';
export { ControllerSyncError, runController, toKeys } from './runController.ts';
export { enqueueKeys } from './enqueueKeys.ts';
export { InvalidReconcileResultError } from './reconcileWorker.ts';
export type { ControllerError } from './reconcileWorker.ts';
export type { ControllerHandle, ControllerMetrics, ControllerOptions, ControllerPhase, ReconcileResult } from './runController.ts';
