/**
 * The KubeConfig informer factory against the simulator and a real kube-apiserver: selectors on list
 * and watch, every built-in descriptor, a CRD made at run time, and 401/403.
 */
import { describe, expect, it } from '@jest/globals';
import { KubeApiError, type KubeObject, type ReflectorStatus, type SharedInformer, type Wire } from '@rxinformer/core';
import { PAGED } from '@rxinformer/testing';
import { restrictedAccess, serverKinds } from '@rxinformer/testing/servers';
import { builtinResources, configMaps, pods, ResourceNotFoundError, type KubeResource } from '../src/index.ts';
import { builtinObject, collectionPath } from './builtinObjects.ts';
import { fastReflector as fast, podBody, serverWithKit, waitFor } from './simHarness.ts';

describe.each(serverKinds())('createKubeInformerFactory resources against the %s server', (kind) => {
  const env = serverWithKit(kind, { sim: { seed: 3, bookmarkIntervalMs: 150, auth: { token: 'sim-token' } } });

  it('should apply label and field selectors to both list and watch, streamed or paged', async () => {
    const ns = await env.server.namespace('sel');
    const podsPath = `/api/v1/namespaces/${ns}/pods`;
    for (const [name, tier] of [
      ['p1', 'frontend'],
      ['p2', 'backend'],
      ['p3', 'frontend'],
    ]) {
      await env.server.api.create(podsPath, podBody(name, { tier }));
      await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
    }
    const { factory, transport } = env.kit.open({ namespace: ns });
    const frontends = factory.informerFor(pods, { labelSelector: 'tier=frontend', reflector: fast });
    const p2 = factory.informerFor(configMaps, { fieldSelector: 'metadata.name=p2', reflector: { ...fast, ...PAGED } });
    factory.start();
    await factory.waitForCacheSync();
    expect(frontends.getStore().keys().slice().sort()).toEqual([`${ns}/p1`, `${ns}/p3`]);
    expect(p2.getStore().keys()).toEqual([`${ns}/p2`]);
    const move = (name: string, tier: string) => env.server.api.patch(`${podsPath}/${name}`, { metadata: { labels: { tier } } });
    await move('p1', 'backend'); // stops matching: DELETED
    await move('p2', 'frontend'); // starts matching: ADDED
    expect(await waitFor(() => frontends.getStore().keys().slice().sort().join() === `${ns}/p2,${ns}/p3`)).toBe(true);
    const podPaths = transport.paths.filter((p) => p.startsWith(podsPath));
    expect(podPaths.some((p) => p.includes('sendInitialEvents=true'))).toBe(true); // the streaming list
    expect(podPaths.every((p) => p.includes('labelSelector=tier%3Dfrontend'))).toBe(true);
    const cmPaths = transport.paths.filter((p) => p.startsWith(`/api/v1/namespaces/${ns}/configmaps`));
    expect(cmPaths.some((p) => p.includes('watch=true')) && cmPaths.some((p) => !p.includes('watch=true'))).toBe(true); // list, watch
    expect(cmPaths.every((p) => p.includes('fieldSelector=metadata.name%3Dp2'))).toBe(true);
    factory.shutdown();
  });

  it('should list and watch every built-in descriptor', async () => {
    const ns = await env.server.namespace('every');
    const { factory } = env.kit.open();
    // CRDs have their own test.
    const served = builtinResources.filter((r) => r.resource !== 'customresourcedefinitions');
    const nameOf = (r: KubeResource) => `every-${r.group ? `${r.group.split('.')[0]}-` : ''}${r.resource}${r.namespaced ? '' : `-${ns}`}`;
    const all = await Promise.all(
      served.map(async (r) => {
        const name = nameOf(r);
        await env.server.api.create(collectionPath(r, ns), builtinObject(r, name, ns));
        const key = r.namespaced ? `${ns}/${name}` : name;
        return { r, key, path: `${collectionPath(r, ns)}/${name}`, informer: factory.informerFor(r, { reflector: fast }) };
      }),
    );
    factory.start();
    await factory.waitForCacheSync();
    for (const { r, key, informer } of all) expect([r.resource, informer.getStore().get(key)?.kind]).toEqual([r.resource, r.kind]);
    // Every deletion is seen (a namespace only starts terminating here: no namespace controller runs
    // next to kube-apiserver; a label on it is seen instead).
    for (const { r, path } of all)
      if (r.resource === 'namespaces') await env.server.api.patch(path, { metadata: { labels: { seen: 'yes' } } });
      else await env.server.api.delete(path, { force: true });
    const gone = ({ r, key, informer }: (typeof all)[number]) =>
      r.resource === 'namespaces'
        ? informer.getStore().get(key)?.metadata?.labels?.seen === 'yes'
        : informer.getStore().get(key) === undefined;
    expect(await waitFor(() => all.every(gone))).toBe(true);
    factory.shutdown();
  }, 60_000);

  it('should watch a CRD created at run time through discovery', async () => {
    const ns = await env.server.namespace('crd');
    const { factory, transport } = env.kit.open();
    const ref = { apiVersion: 'example.com/v1', kind: 'Widget' };
    await expect(factory.informerForRef(ref)).rejects.toBeInstanceOf(ResourceNotFoundError);
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    await env.server.api.create(crdPath, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    // kube-apiserver's own controller establishes it a moment later; discovery shows it after that.
    const established = async () =>
      ((await env.server.api.get(`${crdPath}/widgets.example.com`)).status?.conditions ?? []).some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      );
    expect(await waitFor(established)).toBe(true);
    let resolved: SharedInformer<Wire<KubeObject>> | undefined;
    const resolve = async () => {
      resolved = await factory.informerForRef<KubeObject>(ref, { namespace: ns, reflector: fast }).catch((e) => {
        if (e instanceof ResourceNotFoundError) return undefined;
        throw e;
      });
      return resolved !== undefined;
    };
    expect(await waitFor(resolve)).toBe(true);
    const widgets = resolved!;
    const byName = await factory.discovery.resolve({ group: 'example.com', version: 'v1', resource: 'widgets' });
    expect(byName).toEqual({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    const widgetsPath = `/apis/example.com/v1/namespaces/${ns}/widgets`;
    const widget = (name: string, size: number) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size } });
    await env.server.api.create(widgetsPath, widget('w1', 1));
    factory.start();
    await factory.waitForCacheSync();
    await env.server.api.create(widgetsPath, widget('w2', 2));
    expect(await waitFor(() => widgets.getStore().size === 2)).toBe(true);
    expect(widgets.getStore().get(`${ns}/w2`)).toMatchObject({ spec: { size: 2 } });
    expect(transport.paths.some((p) => p.startsWith(`${widgetsPath}?watch=true`))).toBe(true);
    factory.shutdown();
  });

  it('should report 401 and 403 with a clear status and back off between attempts', async () => {
    const ns = await env.server.namespace('auth');
    await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'only' } });
    const { factory: f1, transport: wrong } = env.kit.open({ namespace: ns, token: 'wrong' });
    const i1 = f1.informerFor(configMaps, { reflector: { ...fast, backoff: { initialMs: 50, maxMs: 400 } } });
    const s1: ReflectorStatus[] = [];
    i1.status$.subscribe((s) => s1.push(s));
    f1.start();
    await waitFor(() => s1.filter((s) => s.phase === 'backingOff').length >= 3);
    f1.shutdown();
    const failed = s1.filter((s) => s.phase === 'backingOff');
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(
      failed.every((s) => s.lastError instanceof KubeApiError && s.lastError.code === 401 && s.lastError.reason === 'Unauthorized'),
    ).toBe(true);
    expect(failed.every((s) => (s.backoffMs ?? 0) >= 50)).toBe(true);
    // Every request was followed by a backoff: no hot loop.
    expect(wrong.paths.length).toBeLessThanOrEqual(failed.length + 1);
    expect(i1.hasSynced()).toBe(false);

    // Authenticated, not authorized: a ServiceAccount without RBAC on kube-apiserver.
    const access = await restrictedAccess(env.server, ns, { resource: 'configmaps' });
    const { factory: f2 } = env.kit.open({ namespace: ns, token: access.token });
    const i2 = f2.informerFor(configMaps, { reflector: { ...fast, backoff: { initialMs: 50, maxMs: 100 } } });
    const s2: ReflectorStatus[] = [];
    i2.status$.subscribe((s) => s2.push(s));
    f2.start();
    await waitFor(() => s2.some((s) => s.phase === 'backingOff'));
    const forbidden = s2.find((s) => s.phase === 'backingOff')!.lastError as KubeApiError;
    expect([forbidden.code, forbidden.reason]).toEqual([403, 'Forbidden']);
    expect(forbidden.message).toMatch(/configmaps is forbidden/);
    await access.allow();
    await f2.waitForCacheSync(); // recovers on its own once allowed
    expect(i2.getStore().size).toBe(1);
    f2.shutdown();
  });
});
