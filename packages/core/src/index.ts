/**
 * @rxinformer/core — the public API: client-go's `tools/cache` as RxJS Observables (ListerWatcher
 * contract, reflector, delta store, indexer, shared informer, factory, workqueue, operators).
 * Browser-safe: rxjs and immer only.
 *
 * @example
 * const factory = createInformerFactory(source, { namespace: 'default' });
 * const pods = factory.informerFor(podsResource);
 * pods.addEventHandler({ onAdd: (p) => console.log('add', p.metadata?.name) });
 * factory.start();
 * await factory.waitForCacheSync();
 *
 * @module @rxinformer/core
 */

// Errors
export {
  bodyExcerpt,
  IndexerError,
  InvalidObjectError,
  InvalidOptionsError,
  KubeApiError,
  NetworkError,
  RequestTimeoutError,
  jsonErrorDetail,
  ResponseTooLargeError,
  RxInformerError,
  WatchDecodeError,
} from './errors.ts';
export type { NetworkErrorReason, ResponsePart } from './errors.ts';

// Transport contract
export { INITIAL_EVENTS_END_ANNOTATION, objectOf } from './types.ts';
export type {
  AddedDelta,
  DeletedDelta,
  DeletedObject,
  Delta,
  DeltaType,
  SyncDelta,
  UpdatedDelta,
  IndexFunc,
  Indexers,
  InformerScope,
  KubeObject,
  ListMeta,
  ListOptions,
  ListPage,
  ListerWatcher,
  ListerWatcherSource,
  ObjectMeta,
  ReflectorEvent,
  ReflectorPhase,
  ReflectorStatus,
  ResourceDescriptor,
  Status,
  Store,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from './types.ts';

// Reflector
export { reflector } from './reflector.ts';
export type { ReflectorRunOptions } from './reflector.ts';
export { step as reflectorStep } from './reflectorMachine.ts';
export { initialReflectorModel } from './reflectorModel.ts';
export type { ReflectorAction, ReflectorInput, ReflectorModel, ReflectorState, StepResult } from './reflectorModel.ts';
export type { ReflectorOptions } from './reflectorOptions.ts';
export {
  ListTooLargeError,
  UnknownWatchEventError,
  WatchClosedError,
  WatchIdleError,
  WatchListUnsupportedError,
} from './reflectorErrors.ts';
export { expectedTypeOf, PARTIAL_OBJECT_METADATA_TYPE, UnexpectedTypeError } from './expectedType.ts';
export type { ExpectedType, TypeMeta } from './expectedType.ts';
export { nextBackoff, resolveBackoff, backoffSuccess } from './backoff.ts';
export type { BackoffOptions, BackoffState, NextBackoffOptions } from './backoff.ts';

// Delta store and indexer
export { applyEvent, initialDeltaState, initialDeltaStep } from './deltaStore.ts';
export type { DeltaStoreOptions, DeltaStoreState, DeltaStoreStep } from './deltaStore.ts';
export { createPrepare, prepareEvent, prepareEvents } from './prepare.ts';
export type { Prepare, PrepareOptions } from './prepare.ts';
export { createStore, StoreSnapshot } from './indexer.ts';
export type { StoreOptions } from './indexer.ts';
export { metaNamespaceKeyFunc, splitMetaNamespaceKey, namespaceIndexFunc, NAMESPACE_INDEX } from './keys.ts';
export { PersistentMap } from './persistentMap.ts';
export { fnv1a, seededFnv1a } from './keyHash.ts';
export type { HashFunc } from './keyHash.ts';

// Metadata-only informers
export { metadataOnly, NotPartialMetadataError, PARTIAL_OBJECT_METADATA_ACCEPT } from './partialObjectMetadata.ts';
export type { MetadataOnlyDescriptor, PartialObjectMetadata } from './partialObjectMetadata.ts';

// Shared informer and handlers
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

// Factory
export { createInformerFactory, FactoryShutdownError } from './informerFactory.ts';
export type { InformerFactory, InformerFactoryOptions, InformerForOptions } from './informerFactory.ts';

// Workqueue and controller loop
export { WorkQueue } from './workqueue.ts';
export type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueue.ts';
export { defaultControllerRateLimiter, exponentialFailureRateLimiter, maxOfRateLimiters, tokenBucketRateLimiter } from './rateLimiter.ts';
export type { ExponentialFailureOptions, RateLimiter, TokenBucketOptions } from './rateLimiter.ts';
export { ControllerSyncError, runController, toKeys } from './runController.ts';
export { InvalidReconcileResultError } from './reconcileWorker.ts';
export type { ControllerError } from './reconcileWorker.ts';
export type { ControllerHandle, ControllerMetrics, ControllerOptions, ControllerPhase, ReconcileResult } from './runController.ts';

// Leader election on Leases
export { InvalidLeaseError, LEASE_INSTANCE_ANNOTATION, LEASE_RELEASED, leaseRecord, microTime } from './lease.ts';
export type { Lease, LeaseRecord, LeaseSpec } from './lease.ts';
export { fetchLeaseClient, httpLeaseClient, leasesPath } from './leaseClient.ts';
export type { FetchLeaseClientOptions, HttpSend, LeaseClient } from './leaseClient.ts';
export { DEFAULT_LEASE_TIMING, DuplicateIdentityError, resolveLeaseTiming } from './leaderElectionRules.ts';
export type { LeaseTiming } from './leaderElectionRules.ts';
export { monotonicScheduler } from './clocks.ts';
export type { LeaseClocks } from './clocks.ts';
export { leaderElection } from './leaderElection.ts';
export type { LeaderElection, LeaderElectionOptions, LeaderElectionState } from './leaderElection.ts';
export { whileLeading } from './whileLeading.ts';
export type { LeaderWork, StoppableWork } from './whileLeading.ts';

// Sharding: KEP-5866's hash space, slots, a ring of replicas on Leases
export { HASH_SPACE_END, fnv1a64, shardKeyOf, slotOf, slotOfKey, slotRange, validateSlotCount } from './shardHash.ts';
export type { ShardKeyField } from './shardHash.ts';
export { ShardSelectorError, hexBound, parseShardSelector, shardMatcher, shardSelectorFor } from './shardSelector.ts';
export type { ShardRange } from './shardSelector.ts';
export { assignSlots, slotsOf } from './shardAssignment.ts';
export { shardedListerWatcher } from './shardedListerWatcher.ts';
export {
  SHARD_CONFIG_ANNOTATION,
  SHARD_RING_LABEL,
  SHARD_SLOTS_ANNOTATION,
  ShardRingConflictError,
  decodeSlots,
  encodeSlots,
} from './shardMembers.ts';
export { startShardRing } from './shardRing.ts';
export type { ShardRing, ShardRingOptions, ShardRingState } from './shardRing.ts';
export { runShardedController } from './shardedController.ts';
export type { ShardedControllerHandle, ShardedControllerOptions } from './shardedController.ts';

// Ages as kubectl prints them
export { formatAge, humanDuration } from './age.ts';

// Label selectors and operators
export {
  LabelSelectorError,
  parseLabelSelector,
  matchesLabels,
  labelSelectorToString,
  fromLabelSelectorObject,
  isValidLabelKey,
  isValidLabelValue,
} from './labelSelector.ts';
export type { LabelOperator, LabelRequirement, LabelSelector, LabelSelectorObject } from './labelSelector.ts';
export { ofType } from './operators/ofType.ts';
export { inNamespace } from './operators/inNamespace.ts';
export { withLabels } from './operators/withLabels.ts';
export { selectFromStore } from './operators/selectFromStore.ts';

// HTTP (browser-safe fetch) ListerWatcher and the wire decoding every HTTP transport shares
export { fetchListerWatcher, fetchGet } from './fetchListerWatcher.ts';
export type { FetchListerWatcherOptions } from './fetchListerWatcher.ts';
export { httpListerWatcher, andSelectors } from './httpListerWatcher.ts';
export type { HttpListerWatcherOptions } from './httpListerWatcher.ts';
export type { HttpGet, HttpResponse } from './httpGet.ts';
export {
  DEFAULT_MAX_LIST_BODY_BYTES,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  errorBody,
  MAX_BODY_BYTES,
  readBody,
  resolveHttpLimits,
} from './httpLimits.ts';
export type { HttpLimitOptions, ResolvedHttpLimits } from './httpLimits.ts';
export {
  DEFAULT_MAX_WATCH_LINE_BYTES,
  lineSplitter,
  createWatchDecoder,
  decodeWatchLine,
  decodeListPage,
  parseListBody,
} from './watchDecoder.ts';
export type { WatchDecoder, WatchDecoderOptions } from './watchDecoder.ts';
export { apiErrorFromResponse, networkErrorFrom, parseRetryAfter } from './httpErrors.ts';
export { listQuery, watchQuery, resourcePath } from './listWatchQuery.ts';
