import { afterEach, describe, expect, it } from '@jest/globals';
import { Subject, defer, finalize, of } from 'rxjs';
import { CacheSyncTimeoutError } from '../informer/cacheSync.ts';
import type { KubeObject, ListerWatcherSource, ListPage, ReflectorStatus, ResourceDescriptor, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj } from '@rxinformer/testing';
import { clusterKey, parseClusterKey } from './clusterKey.ts';
import type { Cluster, ClusterEvent } from './clusterProvider.ts';
import { createMultiClusterFactory, type MultiClusterFactory } from './multiClusterFactory.ts';
import type { ClusterDelta, ClusterStatus } from './multiClusterInformer.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A cluster whose list answers when the test says, and whose watch the test drives. */
function testCluster(name: string) {
  const list = new Subject<ListPage>();
  const watch = new Subject<WatchEvent>();
  let closed = 0;
  const source: ListerWatcherSource = () => {
    const lw = fakeListerWatcher();
    lw.scriptList(list);
    lw.scriptWatch(defer(() => watch));
    return lw as never;
  };
  const cluster: Cluster = { name, source, close: () => void closed++ };
  return {
    cluster,
    answer: (...items: KubeObject[]) => {
      list.next(page(items, '10'));
      list.complete();
    },
    fail: (error: Error) => list.error(error),
    watch,
    closed: () => closed,
  };
}

const made: MultiClusterFactory[] = [];
const fleetOf = (clusters: Subject<ClusterEvent>) => {
  const f = createMultiClusterFactory({ clusters$: clusters });
  made.push(f);
  return f;
};
afterEach(() => {
  for (const f of made.splice(0)) f.shutdown();
});

/** A started fleet of clusters a and b (joined, the provider synced) and its pods view; `before` runs before the start. */
function twoClusters(before: (view: ReturnType<MultiClusterFactory['informerFor']>) => void = () => undefined) {
  const provider = new Subject<ClusterEvent>();
  const fleet = fleetOf(provider);
  const view = fleet.informerFor(pods);
  before(view);
  const a = testCluster('a');
  const b = testCluster('b');
  fleet.start();
  for (const c of [a, b]) provider.next({ type: 'join', cluster: c.cluster });
  provider.next({ type: 'synced' });
  return { provider, fleet, view, a, b };
}

describe('clusterKey', () => {
  it('should put the cluster before the key and read it back', () => {
    expect(clusterKey('eu-1', 'default/web')).toBe('cluster://eu-1/default/web');
    expect(parseClusterKey('cluster://eu-1/default/web')).toEqual({ cluster: 'eu-1', key: 'default/web' });
    expect(parseClusterKey('cluster://eu-1/node-a')).toEqual({ cluster: 'eu-1', key: 'node-a' });
    expect(parseClusterKey('default/web')).toBeUndefined();
    expect(parseClusterKey('cluster:///x')).toBeUndefined();
  });
});

describe('createMultiClusterFactory', () => {
  it('should key every cluster objects with its cluster and sync once the provider and every cluster have', async () => {
    const provider = new Subject<ClusterEvent>();
    const fleet = fleetOf(provider);
    const view = fleet.informerFor(pods);
    const heard: string[] = [];
    const handler = view.addEventHandler({ onAdd: (_o, initial, key) => void heard.push(`${key}${initial ? ' (initial)' : ''}`) });
    const a = testCluster('a');
    const b = testCluster('b');
    fleet.start();
    let synced = false;
    const wait = fleet.waitForCacheSync().then(() => (synced = true));
    provider.next({ type: 'join', cluster: a.cluster });
    provider.next({ type: 'join', cluster: b.cluster });
    a.answer(obj('x', '1'));
    await Promise.resolve();
    expect(view.hasSynced()).toBe(false); // b has not listed
    b.answer(obj('x', '2'), obj('y', '3'));
    expect(view.hasSynced()).toBe(false); // the provider has not told all its clusters
    await Promise.resolve();
    expect(synced).toBe(false);
    provider.next({ type: 'synced' });
    await wait;
    expect(view.hasSynced()).toBe(true);
    expect(handler.hasSynced()).toBe(true);
    expect([...view.getStore().keys()].sort()).toEqual(['cluster://a/default/x', 'cluster://b/default/x', 'cluster://b/default/y']);
    expect(view.getStore().get('cluster://b/default/x')?.metadata?.resourceVersion).toBe('2');
    expect(heard.sort()).toEqual(['cluster://a/default/x (initial)', 'cluster://b/default/x (initial)', 'cluster://b/default/y (initial)']);
    expect([...view.informerOf('b')!.getStore().keys()].sort()).toEqual(['default/x', 'default/y']); // a normal informer
    // A live event of one cluster reaches the view tagged with its cluster.
    const deltas: ClusterDelta[] = [];
    view.events$.subscribe((d) => deltas.push(d));
    a.watch.next({ type: 'MODIFIED', object: obj('x', '11') });
    expect(deltas.map((d) => [d.type, d.key, d.cluster])).toEqual([['Updated', 'cluster://a/default/x', 'a']]);
    expect(view.getStore().get('cluster://a/default/x')?.metadata?.resourceVersion).toBe('11');
  });

  it('should take a cluster that leaves out of the view as tombstones marked clusterLeft, and shut its informers down', async () => {
    const deleted: [string, boolean][] = [];
    const { provider, fleet, view, a, b } = twoClusters((v) =>
      v.addEventHandler({ onDelete: (d) => void deleted.push([d.key, d.finalStateUnknown]) }),
    );
    a.answer(obj('x', '1'));
    b.answer(obj('y', '2'), obj('z', '3'));
    await fleet.waitForCacheSync();
    const informerOfB = view.informerOf('b')!;
    expect(b.watch.observed).toBe(true);
    const deltas: ClusterDelta[] = [];
    view.events$.subscribe((d) => deltas.push(d));
    provider.next({ type: 'leave', name: 'b' });
    expect(deltas.map((d) => [d.type, d.key, d.cluster, d.clusterLeft]).sort()).toEqual([
      ['Deleted', 'cluster://b/default/y', 'b', true],
      ['Deleted', 'cluster://b/default/z', 'b', true],
    ]);
    expect(deltas.every((d) => d.store.size === 1)).toBe(true); // the cluster leaves at once
    expect(view.getStore().keys()).toEqual(['cluster://a/default/x']);
    expect(fleet.clusters()).toEqual(['a']);
    expect(view.clusters()).toEqual(['a']);
    expect(informerOfB.isRunning()).toBe(false);
    expect(b.watch.observed).toBe(false); // its watch was aborted
    expect(() => informerOfB.start()).toThrow(/shut down/);
    await Promise.resolve();
    expect(b.closed()).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(deleted.sort()).toEqual([
      ['cluster://b/default/y', true],
      ['cluster://b/default/z', true],
    ]);
  });

  it('should treat a join of a name present as its leave, then its join', async () => {
    const provider = new Subject<ClusterEvent>();
    const fleet = fleetOf(provider);
    const view = fleet.informerFor(pods);
    const before = testCluster('a');
    fleet.start();
    provider.next({ type: 'join', cluster: before.cluster });
    provider.next({ type: 'synced' });
    before.answer(obj('old', '1'));
    await fleet.waitForCacheSync();
    const after = testCluster('a');
    const deltas: ClusterDelta[] = [];
    view.events$.subscribe((d) => deltas.push(d));
    provider.next({ type: 'join', cluster: after.cluster });
    after.answer(obj('new', '5'));
    expect(deltas.map((d) => [d.type, d.key, d.clusterLeft ?? false])).toEqual([
      ['Deleted', 'cluster://a/default/old', true],
      ['Added', 'cluster://a/default/new', false],
    ]);
    await Promise.resolve();
    expect(before.closed()).toBe(1);
    expect(after.closed()).toBe(0);
  });

  it('should report each cluster status with its cluster, and the least healthy as the view status', async () => {
    const statuses: ClusterStatus[] = [];
    const { fleet, view, a, b } = twoClusters((v) => v.clusterStatus$.subscribe((s) => statuses.push(s)));
    a.answer(obj('x', '1'));
    b.fail(new Error('connection refused'));
    const ofB = statuses.filter((s) => s.cluster === 'b').map((s) => s.status);
    expect(ofB.at(-1)).toMatchObject({ phase: 'backingOff', lastError: { message: 'connection refused' } });
    expect(view.getClusterStatus().get('a')?.phase).not.toBe('backingOff');
    const phase: ReflectorStatus['phase'] = view.getStatus().phase;
    expect(phase).toBe('backingOff');
    const timedOut = await fleet.waitForCacheSync({ timeoutMs: 0 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(CacheSyncTimeoutError);
    expect((timedOut as CacheSyncTimeoutError).unsynced.map((u) => u.cluster)).toEqual(['b']);
    expect((timedOut as Error).message).toContain('cluster b: pods backingOff');
  });

  it('should sync with no cluster once the provider has told it has none', async () => {
    const fleet = createMultiClusterFactory({ clusters$: of({ type: 'synced' } as ClusterEvent) });
    made.push(fleet);
    const view = fleet.informerFor(pods);
    fleet.start();
    await fleet.waitForCacheSync();
    expect(view.hasSynced()).toBe(true);
    expect(view.getStore().size).toBe(0);
  });

  it('should leave out a cluster whose name cannot go into keys, and go on', () => {
    const errors: string[] = [];
    const fleet = createMultiClusterFactory(
      {
        clusters$: of<ClusterEvent[]>(
          { type: 'join', cluster: testCluster('a/b').cluster },
          { type: 'join', cluster: testCluster('c').cluster },
        ),
      },
      { logger: { error: (m) => void errors.push(m) } },
    );
    made.push(fleet);
    fleet.start();
    expect(fleet.clusters()).toEqual(['c']);
    expect(errors).toEqual([expect.stringContaining('a cluster name must be a non-empty string without "/"')]);
  });

  it('should not subscribe to the provider before it starts, and unsubscribe on shutdown', () => {
    let subscribed = 0;
    let unsubscribed = 0;
    const clusters$ = defer(() => {
      subscribed++;
      return new Subject<ClusterEvent>();
    }).pipe(finalize(() => unsubscribed++));
    const fleet = createMultiClusterFactory({ clusters$ });
    fleet.informerFor(pods);
    expect(subscribed).toBe(0);
    fleet.start();
    fleet.stop();
    fleet.start();
    expect(subscribed).toBe(1);
    expect(unsubscribed).toBe(0);
    fleet.shutdown();
    expect(unsubscribed).toBe(1);
    expect(() => fleet.informerFor(pods)).toThrow(/shut down/);
  });
});
