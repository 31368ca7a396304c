/**
 * Stalled-watch detection over real HTTP, against the simulator and a real kube-apiserver: the fault
 * proxy holds the informer's watch open and silent while another client writes; the informer must
 * see the stall within its check period (a `limit=1` list answering a newer resourceVersion),
 * report it on `status$`, resume the watch from its last resourceVersion (no relist) and converge.
 */
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { WatchStalledError, type ReflectorStatus, type Wire } from '@rxinformer/core';
import { serverKinds } from '@rxinformer/testing/servers';
import { pods } from '../src/index.ts';
import { listsIn, podBody, serverWithKit, view, waitFor } from './simHarness.ts';

/** The check's silence: far below the watch's idle timeout (60 to 120 s plus 30 s), so only the check can see the stall. */
const AFTER_MS = 2000;

describe.each(serverKinds())('stalled-watch detection against the %s server', (kind) => {
  const env = serverWithKit(kind, { sim: { seed: 11 } });

  it('should detect a watch held open and silent while the server moves on, report it, resume and converge', async () => {
    const ns = await env.server.namespace('stall');
    const collection = `/api/v1/namespaces/${ns}/pods`;
    for (let i = 0; i < 3; i++) await env.server.api.create(collection, podBody(`before-${i}`));
    const { factory, transport } = env.kit.open({ namespace: ns });
    const informer = factory.informerFor(pods, {
      reflector: { minWatchTimeoutSeconds: 60, stallCheck: { afterMs: AFTER_MS }, backoff: { initialMs: 20, maxMs: 200 } },
    });
    const statuses: { at: number; status: ReflectorStatus }[] = [];
    informer.status$.subscribe((status) => statuses.push({ at: Date.now(), status }));
    factory.start();
    await factory.waitForCacheSync();
    expect(await waitFor(() => env.server.proxy.open() > 0)).toBe(true);
    const watchesBefore = env.server.proxy.counts.watches;

    expect(env.server.proxy.stall()).toBe(1);
    const stalledAt = Date.now();
    for (let i = 0; i < 3; i++) await env.server.api.create(collection, podBody(`during-${i}`));
    await env.server.api.delete(`${collection}/before-0`);

    const stalls = () => statuses.filter(({ status }) => status.lastError instanceof WatchStalledError);
    expect(await waitFor(() => stalls().length > 0, 4 * AFTER_MS + 10_000)).toBe(true);
    const [first] = stalls();
    expect(first.at).toBeGreaterThanOrEqual(stalledAt); // none while the watch was live
    // Within two periods of the stall (the watch may have been silent for almost one already) plus the check's own list.
    expect(first.at - stalledAt).toBeLessThan(2 * AFTER_MS + 3000);
    const error = first.status.lastError as WatchStalledError;
    expect(error.lastSeen).not.toBe(error.serverAt);
    expect(first.status).toMatchObject({ phase: 'watching', stalledWatches: 1 });

    const want = async () => view((await env.server.api.get(collection)).items);
    const have = () => view(informer.getStore().list() as Wire<V1Pod>[]);
    expect(await waitFor(async () => JSON.stringify(have()) === JSON.stringify(await want()), 20_000)).toBe(true);
    expect(have()).toEqual(await want());
    // Resumed from the last resourceVersion: a new watch, checks of one object, and no list but the first.
    expect(env.server.proxy.counts.watches).toBeGreaterThan(watchesBefore);
    expect(transport.paths.filter((p) => p.endsWith('/pods?limit=1')).length).toBeGreaterThan(0);
    expect(listsIn(transport.paths)).toHaveLength(1);
    expect(statuses.at(-1)?.status.relistCount).toBe(0);
  }, 60_000);

  it("should answer a quiet collection's limit=1 list with a newer resourceVersion after a write elsewhere (the check's caveat)", async () => {
    const [quiet, busy] = [await env.server.namespace('quiet'), await env.server.namespace('busy')];
    await env.server.api.create(`/api/v1/namespaces/${quiet}/pods`, podBody('only'));
    const rvOf = async () => (await env.server.api.get(`/api/v1/namespaces/${quiet}/pods?limit=1`)).metadata.resourceVersion as string;
    const before = await rvOf();
    // Nothing written: the same (kube-apiserver writes its own Leases now and then, so the simulator only).
    if (env.server.sim) expect(await rvOf()).toBe(before);
    await env.server.api.create(`/api/v1/namespaces/${busy}/configmaps`, { metadata: { name: 'elsewhere' } });
    expect(await rvOf()).not.toBe(before); // another kind, another namespace: moved on all the same
  });
});
