/**
 * @rxinformer/testing — the repository's shared test kit (private, not published): object builders,
 * a scripted ListerWatcher, polling and virtual time. Every package's tests use it instead of a copy.
 *
 * @module @rxinformer/testing
 */
export { fakeListerWatcher } from './fakeListerWatcher.ts';
export type { FakeListerWatcher, FakeListerWatcherOptions } from './fakeListerWatcher.ts';
export { page, pod, testObject } from './objects.ts';
export { PAGED, pagedInformers } from './paged.ts';
export type { PodOptions, TestPod } from './objects.ts';
export { deferred, flushTo, settle, testScheduler, until, virtualClock } from './time.ts';
export type { UntilOptions } from './time.ts';
export { collidingKeys } from './fnvCollisions.ts';
export {
  AGE,
  LIST_VIEW_CELLS,
  listViewCoreEvents,
  listViewDeployments,
  listViewEventsV1,
  listViewNodes,
  listViewPods,
} from './listViewFixtures.ts';
export type { ListViewPod } from './listViewFixtures.ts';
export { FakeLeaseServer, TermLog } from './fakeLeaseServer.ts';
export type { LeaseWrite } from './fakeLeaseServer.ts';
// The store's per-process hash seed, for building keys that collide under it (core keeps it internal).
export { processHashSeed } from '../../core/src/store/keyHash.ts';
export { bytes, entry, envelope, int, msg, varint } from './protobufEncoder.ts';
