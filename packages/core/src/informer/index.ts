/**
 * The shared informer, its handlers and resync, and the factory that shares informers by resource.
 */
export { createSharedInformer, InformerShutdownError } from './sharedInformer.ts';
export type { SharedInformer, SharedInformerOptions } from './sharedInformer.ts';
export { whileSubscribed } from './whileSubscribed.ts';
export { deliverTo } from './eventHandler.ts';
export type { DeliverToOptions } from './eventHandler.ts';
export type {
  BufferPolicy,
  Delivery,
  EventHandler,
  EventHandlerOptions,
  HandlerError,
  HandlerMetrics,
  HandlerRegistration,
} from './handlerTypes.ts';
export { MIN_RESYNC_PERIOD_MS, RESYNC_SLICE_KEYS, resyncPasses, resyncTicks, syncDeltas, validateResyncPeriod } from './resync.ts';
export type { ResyncOptions } from './resync.ts';
export { createInformerFactory, FactoryShutdownError } from './informerFactory.ts';
export type { InformerFactory, InformerFactoryOptions, InformerForOptions } from './informerFactory.ts';
export { CacheSyncTimeoutError, FactoryNotStartedError, FactoryStoppedError, NoInformersError } from './cacheSync.ts';
export type { CacheSyncOptions, UnsyncedInformer } from './cacheSync.ts';
export type { InformerLogDetails, InformerLogger } from './statusLogger.ts';
export type { FactorySnapshotOptions } from './factoryOptions.ts';
export { DEFAULT_SNAPSHOT_INTERVAL_MS, saveTimes } from './snapshotting.ts';
export type { InformerSnapshotOptions } from './snapshotting.ts';
