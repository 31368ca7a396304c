/**
 * The workqueue, its rate limiters and the controller loop over it: client-go's `util/workqueue`
 * with priorities, and controller-runtime's loop (`runController`). `enqueueKeys(queue)` is the
 * handler that feeds a queue from an informer.
 *
 * @example
 * // enqueueKeys, runController and WorkQueue come from @rxinformer/core/workqueue
 * const queue = new WorkQueue<string>();
 * pods.addEventHandler(enqueueKeys(queue));
 * const controller = runController({ queue, synced: pods.synced$, reconcile: async (key) => {} });
 *
 * @module @rxinformer/core/workqueue
 */
export { WorkQueue } from './workqueue.ts';
export type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueue.ts';
export type { HoldEnd, HoldHandlers, KeyWait, WaitReason } from './keyWaits.ts';
export { defaultControllerRateLimiter, exponentialFailureRateLimiter, maxOfRateLimiters, tokenBucketRateLimiter } from './rateLimiter.ts';
export type { ExponentialFailureOptions, RateLimiter, TokenBucketOptions } from './rateLimiter.ts';
export { ControllerSyncError, runController, toKeys } from './runController.ts';
export { enqueueKeys } from './enqueueKeys.ts';
export { InvalidReconcileResultError } from './reconcileWorker.ts';
export type { ControllerError, ControllerErrorStage } from './reconcileWorker.ts';
export type { ControllerHandle, ControllerMetrics, ControllerOptions, ControllerPhase, ReconcileResult } from './runController.ts';
