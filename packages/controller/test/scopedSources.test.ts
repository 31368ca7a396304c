/**
 * Over real HTTP, against the simulator and a real kube-apiserver: live reads (`list` page by page,
 * `listAll`, `get`), sources scoped by label and field selectors (one informer per scope in the
 * factory), and read-your-writes through `req.api` on a scoped source.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createInformerFactory, fetchListerWatcher, type InformerFactory } from '@rxinformer/core';
import { serverKinds } from '@rxinformer/testing/servers';
import { until } from '@rxinformer/testing';
import { controllerFor, type Logger, type ReconcileRequest } from '../src/index.ts';
import { configMaps, serverSuite, type ConfigMap } from './kit.ts';

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };

describe.each(serverKinds())('scoped sources and live reads against the %s server', (kind) => {
  const suite = serverSuite(kind, 'scoped');
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  /** A factory of the suite's namespace whose informers list and watch their scope's selectors. */
  const factoryOf = (): InformerFactory => {
    const factory = createInformerFactory(
      (resource, scope) =>
        fetchListerWatcher({
          ...suite.server.fetchOptions(),
          resource,
          namespace: scope.namespace,
          labelSelector: scope.labelSelector,
          fieldSelector: scope.fieldSelector,
        }),
      { namespace: suite.ns },
    );
    stops.push(async () => factory.shutdown());
    return factory;
  };
  const labelled = (name: string, labels: Record<string, string>): ConfigMap => ({
    ...suite.cm(name),
    metadata: { ...suite.cm(name).metadata, labels },
  });

  it('should list live page by page with typed items, list all pages at once, and get one object', async () => {
    for (let i = 0; i < 7; i++) await suite.cms.create(labelled(`page-${i}`, { paged: 'yes' }));
    await suite.cms.create(labelled('other', { paged: 'no' }));
    const first = await suite.cms.list({ namespace: suite.ns, labelSelector: 'paged=yes', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.items.every((cm) => cm.apiVersion === 'v1' && cm.kind === 'ConfigMap')).toBe(true); // list items lack them
    expect(first.metadata?.continue).toEqual(expect.any(String));
    const second = await suite.cms.list({ namespace: suite.ns, labelSelector: 'paged=yes', limit: 3, continue: first.metadata!.continue });
    expect(second.items.map((cm) => cm.metadata!.name)).toEqual(['page-3', 'page-4', 'page-5']);
    const all = await suite.cms.listAll({ namespace: suite.ns, labelSelector: 'paged=yes', limit: 2 });
    expect(all.items.map((cm) => cm.metadata!.name)).toEqual(Array.from({ length: 7 }, (_, i) => `page-${i}`));
    expect(all.metadata).toEqual({ resourceVersion: expect.any(String) });
    const byName = await suite.cms.list({ namespace: suite.ns, fieldSelector: 'metadata.name=other' });
    expect(byName.items.map((cm) => cm.metadata!.labels)).toEqual([{ paged: 'no' }]);
    expect((await suite.cms.get({ namespace: suite.ns, name: 'page-0' })).metadata!.labels).toEqual({ paged: 'yes' });
    await expect(suite.cms.list({ labelSelector: 'a in (' })).rejects.toThrow(/labelSelector/);
  });

  it('should cache and reconcile only the scoped objects, one informer per scope, and map a field-selected source to keys', async () => {
    await suite.cms.create(labelled('gold-1', { tier: 'gold' }));
    await suite.cms.create(labelled('gold-2', { tier: 'gold' }));
    await suite.cms.create(labelled('silver', { tier: 'silver' }));
    await suite.cms.create(labelled('trigger', {}));
    const factory = factoryOf();
    const seen: string[] = [];
    const ctl = controllerFor(factory, configMaps, { name: `scoped-${kind}`, labelSelector: 'tier=gold', logger: quiet })
      .watches(configMaps, () => [`${suite.ns}/gold-1`], { fieldSelector: 'metadata.name=trigger' })
      .reconcile(async ({ name }) => void seen.push(name));
    const run = ctl.start();
    stops.push(() => run.stop());
    await until(() => seen.length === 2, { timeoutMs: 15_000 }); // the trigger's initial key gold-1 waited with its own
    expect([...seen].sort()).toEqual(['gold-1', 'gold-2']);
    const [primary, watched] = ctl.sourceInformers().map((s) => s.informer);
    expect([...primary.getStore().keys()].sort()).toEqual([`${suite.ns}/gold-1`, `${suite.ns}/gold-2`]);
    expect(watched.getStore().keys()).toEqual([`${suite.ns}/trigger`]);
    expect(factory.informerFor(configMaps, { labelSelector: 'tier=gold' })).toBe(primary); // the factory's, shared
    const before = seen.length;
    await suite.cms.mergePatch({ namespace: suite.ns, name: 'trigger' }, { data: { go: '1' } });
    await suite.cms.mergePatch({ namespace: suite.ns, name: 'silver' }, { data: { go: '1' } });
    await until(() => seen.length > before, { timeoutMs: 15_000 });
    expect(seen.slice(before)).toEqual(['gold-1']);
  });

  it("should not hold a reconcile whose write took the object out of its source's scope", async () => {
    // The write's object can never show in a cache of `tier=bronze`: waiting for it held the key until the timeout.
    await suite.cms.create(labelled('bronze', { tier: 'bronze' }));
    const factory = factoryOf();
    const seen: (string | undefined)[] = [];
    let first = true;
    const ctl = controllerFor(factory, configMaps, {
      name: `leaving-${kind}`,
      labelSelector: 'tier=bronze',
      client: suite.client,
      readYourWrites: { timeoutMs: 8000 },
      logger: quiet,
    }).reconcile(async ({ object, api, namespace, name }: ReconcileRequest<ConfigMap>) => {
      seen.push(object?.metadata?.labels?.tier);
      if (object === undefined) return;
      await api(configMaps).mergePatch({ namespace, name }, { metadata: { labels: { tier: 'retired' } } });
      if (!first) return;
      first = false;
      return { requeueAfterMs: 0 }; // at once: long before the watch can tell of the write, so a hold would put it off
    });
    const run = ctl.start();
    stops.push(() => run.stop());
    // bronze (maybe twice: the requeue may come before the watch's word), then gone: it left the scope.
    await until(() => seen.includes(undefined), { timeoutMs: 5000 });
    expect(seen[0]).toBe('bronze');
    expect(seen.slice(0, seen.indexOf(undefined)).every((tier) => tier === 'bronze')).toBe(true);
    expect(ctl.readYourWritesStats()).toMatchObject({ holds: 0, timeouts: 0, pending: 0 });
  });
});
