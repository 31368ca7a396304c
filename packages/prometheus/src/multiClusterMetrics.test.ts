import { afterEach, describe, expect, it } from '@jest/globals';
import { NEVER, of, Subject } from 'rxjs';
import type { ListerWatcherSource, ResourceDescriptor } from '@rxinformer/core';
import { createMultiClusterFactory, type ClusterEvent, type MultiClusterFactory } from '@rxinformer/core/multicluster';
import { fakeListerWatcher, page, testObject } from '@rxinformer/testing';
import { Registry } from 'prom-client';
import { multiClusterInformerMetrics } from './multiClusterMetrics.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
/** A cluster whose pods list has `n` objects, then a watch that never ends. */
const clusterOf = (name: string, n: number) => {
  const source: ListerWatcherSource = () => {
    const lw = fakeListerWatcher();
    lw.scriptList(
      of(
        page(
          [...Array(n).keys()].map((i) => testObject(`p${i}`, '1')),
          '1',
        ),
      ),
    );
    lw.scriptWatch(NEVER);
    return lw as never;
  };
  return { name, source };
};

let fleet: MultiClusterFactory | undefined;
afterEach(() => fleet?.shutdown());

describe('multiClusterInformerMetrics', () => {
  it("should give each cluster's informer series labelled with its cluster, and remove them when it leaves", async () => {
    const provider = new Subject<ClusterEvent>();
    fleet = createMultiClusterFactory({ clusters$: provider });
    const view = fleet.informerFor(pods);
    const registry = new Registry();
    const registration = multiClusterInformerMetrics(view, { name: 'v1/pods', registry });
    fleet.start();
    provider.next({ type: 'join', cluster: clusterOf('a', 1) });
    provider.next({ type: 'join', cluster: clusterOf('b', 2) });
    provider.next({ type: 'synced' });
    await fleet.waitForCacheSync();
    const objects = async () => (await registry.metrics()).split('\n').filter((l) => l.startsWith('rxinformer_informer_objects{'));
    expect(await objects()).toEqual([
      'rxinformer_informer_objects{informer="v1/pods",cluster="a"} 1',
      'rxinformer_informer_objects{informer="v1/pods",cluster="b"} 2',
    ]);
    provider.next({ type: 'leave', name: 'b' });
    expect(await objects()).toEqual(['rxinformer_informer_objects{informer="v1/pods",cluster="a"} 1']);
    provider.next({ type: 'join', cluster: clusterOf('b', 3) }); // back, with a new informer
    await fleet.waitForCacheSync();
    expect(await objects()).toContain('rxinformer_informer_objects{informer="v1/pods",cluster="b"} 3');
    registration.unregister();
    expect(await objects()).toEqual([]);
  });
});
