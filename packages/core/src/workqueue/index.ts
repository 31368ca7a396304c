/**
 * The workqueue and its rate limiters: client-go's `util/workqueue` with priorities, and each key's
 * timers in one place (requeue-after, rate-limited retry, debounce, read-your-writes hold).
 * `enqueueKeys(queue)` is the handler that feeds a queue from an informer. The reconcile loop over
 * it is `@rxinformer/controller`'s (`controllerFor`).
 *
 * @example
 * // enqueueKeys and WorkQueue come from @rxinformer/core/workqueue
 * const queue = new WorkQueue<string>();
 * pods.addEventHandler(enqueueKeys(queue));
 * const key = await queue.get(); // a worker's loop: reconcile, then queue.done(key)
 *
 * @module @rxinformer/core/workqueue
 */
export { WorkQueue } from './workqueue.ts';
export type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueue.ts';
export type { HoldEnd, HoldHandlers, KeyWait, WaitReason } from './keyWaits.ts';
export { defaultControllerRateLimiter, exponentialFailureRateLimiter, maxOfRateLimiters, tokenBucketRateLimiter } from './rateLimiter.ts';
export type { ExponentialFailureOptions, RateLimiter, TokenBucketOptions } from './rateLimiter.ts';
export { enqueueKeys, toKeys } from './enqueueKeys.ts';
