import { afterEach, describe, expect, it } from '@jest/globals';
import { NEVER, of, Subject } from 'rxjs';
import type { KubeObject, ListerWatcherSource, ResourceDescriptor, WatchEvent } from '@rxinformer/core';
import { createMultiClusterFactory, type ClusterEvent, type MultiClusterFactory } from '@rxinformer/core/multicluster';
import { fakeListerWatcher, page, testObject } from '@rxinformer/testing';
import type { RunningController } from './controller.ts';
import { controllerFor } from './controllerBuilder.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const configMaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** A configmap `name` whose controller is pod `owner`. */
const owned = (name: string, rv: string, owner: string): KubeObject => ({
  ...testObject(name, rv),
  kind: 'ConfigMap',
  metadata: {
    ...testObject(name, rv).metadata,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner, uid: `uid-${owner}`, controller: true }],
  },
});

/** A cluster with pod `web` and configmap `child` owned by it; `configMapEvents` drives the configmaps' watch. */
function cluster(name: string) {
  const configMapEvents = new Subject<WatchEvent>();
  const source: ListerWatcherSource = (resource) => {
    const lw = fakeListerWatcher();
    const isPods = resource.resource === 'pods';
    lw.scriptList(of(page(isPods ? [testObject('web', '1')] : [owned('child', '1', 'web')], '1')));
    lw.scriptWatch(isPods ? NEVER : configMapEvents);
    return lw as never;
  };
  return { cluster: { name, source }, configMapEvents };
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; !check(); i++) {
    if (i > 2000) throw new Error('never came true');
    await new Promise((r) => setTimeout(r, 5));
  }
};

let fleet: MultiClusterFactory | undefined;
let running: RunningController | undefined;
afterEach(async () => {
  await running?.stop();
  fleet?.shutdown();
});

describe('a builder controller over a multi-cluster factory', () => {
  it("should reconcile cluster:// requests, and an owned object's owner in the owned object's cluster", async () => {
    const a = cluster('a');
    const b = cluster('b');
    fleet = createMultiClusterFactory({
      clusters$: of<ClusterEvent[]>({ type: 'join', cluster: a.cluster }, { type: 'join', cluster: b.cluster }, { type: 'synced' }),
    });
    const log: string[] = [];
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const ctl = controllerFor(fleet, pods, { name: 'fleet', logger: quiet })
      .owns(configMaps)
      .reconcile(async (req) => {
        log.push(`${req.key} ${req.cluster} ${req.namespace}/${req.name} ${req.object === undefined ? 'gone' : 'cached'}`);
      });
    running = ctl.start();
    await until(() => log.length >= 2);
    expect(log.sort()).toEqual(['cluster://a/default/web a default/web cached', 'cluster://b/default/web b default/web cached']);
    log.length = 0;
    b.configMapEvents.next({ type: 'MODIFIED', object: owned('child', '2', 'web') }); // an owned object changes in b
    await until(() => log.length >= 1);
    expect(log).toEqual(['cluster://b/default/web b default/web cached']);
    log.length = 0;
    a.configMapEvents.next({ type: 'MODIFIED', object: owned('child', '2', 'gone-pod') }); // its owner now one a does not cache
    await until(() => log.length >= 2);
    expect(log.sort()).toEqual(['cluster://a/default/gone-pod a default/gone-pod gone', 'cluster://a/default/web a default/web cached']);
  });
});
