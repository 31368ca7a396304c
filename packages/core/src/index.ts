/**
 * @rxinformer/core — client-go's `tools/cache` as RxJS Observables: the ListerWatcher contract, the
 * delta store and indexer, the shared informer and its factory, the operators over them, and the
 * fetch-based HTTP ListerWatcher. Browser-safe: rxjs and immer only.
 *
 * The root exports what a client-go user looks for in `tools/cache`. More specialised parts have
 * subpaths: `@rxinformer/core/workqueue` (the workqueue, its rate limiters and the controller loop,
 * as client-go's `util/workqueue`), `/leader-election`, `/sharding`, `/http` (`httpListerWatcher`
 * over any `HttpGet`, and the wire decoding every HTTP transport shares), `/reflector` (the
 * reflector, its options and its state machine), `/store` (the delta store, the prepare stage and
 * the persistent map under the indexer), `/labels` (label selector parsing in full), `/channel`
 * (informers served over a message channel: a Worker, a SharedWorker, a hub), `/projection`
 * (projections, their presets and kubectl's columns, for list views), `/snapshot` (persisted
 * snapshots for warm restarts: the memory and IndexedDB stores, the format, the identity) and
 * `/time` (timers of any length, and the check of every duration option).
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
  IndexerError,
  InvalidObjectError,
  InvalidOptionsError,
  KubeApiError,
  NetworkError,
  RequestTimeoutError,
  ResponseTooLargeError,
  RxInformerError,
  WatchDecodeError,
} from './errors.ts';
export { InvalidPathSegmentError } from './pathSegment.ts';
export { ListTooLargeError, WatchClosedError, WatchIdleError, WatchListUnsupportedError, WatchStalledError } from './reflector/index.ts';
export { SecretsSnapshotError, SnapshotRejectedError, SnapshotStoreError } from './snapshot/index.ts';

// Streaming lists: what is known of a server's support, shared by its reflectors
export { createStreamingListMemory } from './reflector/index.ts';
export type { StreamingListMemory, StreamingListMemoryOptions, StreamingListSupport } from './reflector/index.ts';

// Objects and the transport contract
export type {
  InformerScope,
  KubeObject,
  ListMeta,
  ListOptions,
  ListPage,
  ListerWatcher,
  ListerWatcherSource,
  ObjectMeta,
  ResourceDescriptor,
  Status,
  WatchEvent,
  WatchEventType,
  WatchItem,
  WatchOpened,
  WatchOptions,
  Wire,
  WireValue,
} from './types.ts';
export { WATCH_OPENED } from './types.ts';

// Metadata-only informers, projections and Table rows: what list views hold
export { metadataOnly, NotPartialMetadataError } from './partialObjectMetadata.ts';
export type { MetadataOnlyDescriptor, PartialObjectMetadata } from './partialObjectMetadata.ts';
export { FieldPathError, project, projected } from './projection/index.ts';
export type { Projected, ProjectedDescriptor, Projection } from './projection/index.ts';
export { tableColumns, tableRows, TableDecodeError } from './tableRow.ts';
export type { TableColumnDefinition, TableRowObject, TableRowsDescriptor } from './tableRow.ts';

// The reflector's status, as informers report it
export type { ReflectorPhase, ReflectorStatus } from './types.ts';
export type { SnapshotStatus } from './snapshotStatus.ts';

// Store and indexer
export { objectOf } from './types.ts';
export type {
  AddedDelta,
  DeletedDelta,
  DeletedObject,
  Delta,
  DeltaType,
  IndexFunc,
  Indexers,
  Store,
  SyncDelta,
  UpdatedDelta,
} from './types.ts';
export { StoreSnapshot, metaNamespaceKeyFunc, splitMetaNamespaceKey, namespaceIndexFunc, NAMESPACE_INDEX } from './store/index.ts';

// Shared informer, handlers and factory
export {
  createSharedInformer,
  InformerShutdownError,
  createInformerFactory,
  FactoryShutdownError,
  FactoryNotStartedError,
  FactoryStoppedError,
  NoInformersError,
  CacheSyncTimeoutError,
  whileSubscribed,
} from './informer/index.ts';
export type {
  BufferPolicy,
  CacheSyncOptions,
  EventHandler,
  FactorySnapshotOptions,
  EventHandlerOptions,
  HandlerError,
  HandlerMetrics,
  HandlerRegistration,
  InformerFactory,
  InformerFactoryOptions,
  InformerForOptions,
  InformerLogDetails,
  InformerLogger,
  InformerSnapshotOptions,
  SharedInformer,
  SharedInformerOptions,
  UnsyncedInformer,
} from './informer/index.ts';

// Persisted snapshots (warm restarts): the contract; the stores and the format are in `@rxinformer/core/snapshot`
export type { SnapshotStore } from './snapshot/index.ts';

// HTTP ListerWatchers
export { fetchListerWatcher } from './http/index.ts';
export type { FetchListerWatcherOptions, HttpLimitOptions } from './http/index.ts';

// Label selectors and operators
export { FieldSelectorError, LabelSelectorError, matchesLabels, parseLabelSelector } from './labels/index.ts';
export type { LabelSelector } from './labels/index.ts';
export { inNamespace, ofType, perAnimationFrame, selectFromStore, withLabels } from './operators/index.ts';
