/** Deletion held by finalizers, as the API server's generic store completes it. */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { openWatch, req, type WatchReader } from './helpers.ts';
import { flushTo, pod, testScheduler } from '@rxinformer/testing';

describe('finalizers', () => {
  let sim: ApiServer;
  let cms: string;
  const open: WatchReader[] = [];
  let ts: ReturnType<typeof testScheduler>; // grace periods run in virtual time
  beforeEach(async () => {
    ts = testScheduler();
    sim = await startApiServer({ port: 0, seed: 3, scheduler: ts });
    cms = `${sim.url}/api/v1/namespaces/default/configmaps`;
  });
  afterEach(async () => {
    for (const w of open.splice(0)) w.close();
    await sim.close();
  });
  const watchFrom = async (url: string, rv: string) => {
    const w = await openWatch(`${url}?watch=true&resourceVersion=${rv}`);
    open.push(w);
    return w;
  };

  it('should delete instead of storing the update that removes the last finalizer: one DELETED carrying the stored state', async () => {
    await req(cms, { method: 'POST', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] }, data: { k: 'v' } } });
    const marked = await req(`${cms}/held`, { method: 'DELETE' });
    const markedRv = marked.body.metadata.resourceVersion as string;
    const w = await watchFrom(cms, markedRv);
    const released = await req(`${cms}/held`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
    expect(released.code).toBe(200);
    // the answer is the object as the update made it, never stored: no finalizers, the stored revision
    expect(released.body.metadata.finalizers).toBeUndefined();
    expect(released.body.metadata.resourceVersion).toBe(markedRv);
    const [ev] = await w.waitFor(1);
    expect(ev.type).toBe('DELETED');
    expect(ev.object.metadata?.finalizers).toEqual(['example.com/hold']);
    expect(Number(ev.object.metadata?.resourceVersion)).toBeGreaterThan(Number(markedRv));
    expect(ev.object.metadata?.resourceVersion).toBe(sim.storage.resourceVersion);
    // A later write's event comes next: nothing else was sent about the deleted object.
    await req(cms, { method: 'POST', body: { metadata: { name: 'after' } } });
    const events = await w.waitFor(2);
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['DELETED held', 'ADDED after']);
    expect((await req(`${cms}/held`)).code).toBe(404);
  });

  it('should keep a pod whose grace period is running when its finalizers go, and delete it when the grace period ends', async () => {
    const pods = `${sim.url}/api/v1/namespaces/default/pods`;
    await req(pods, { method: 'POST', body: pod('p', { finalizers: ['example.com/hold'] }) });
    const deleted = ts.now();
    await req(`${pods}/p?gracePeriodSeconds=3`, { method: 'DELETE' });
    const released = await req(`${pods}/p`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
    expect(released.code).toBe(200);
    flushTo(ts, deleted + 2999);
    expect((await req(`${pods}/p`)).code).toBe(200);
    flushTo(ts, deleted + 3000);
    expect((await req(`${pods}/p`)).code).toBe(404);
  });

  it('should delete a pod whose grace period ended under a finalizer as soon as the finalizer goes', async () => {
    const pods = `${sim.url}/api/v1/namespaces/default/pods`;
    await req(pods, { method: 'POST', body: pod('q', { finalizers: ['example.com/hold'] }) });
    const deleted = ts.now();
    await req(`${pods}/q?gracePeriodSeconds=1`, { method: 'DELETE' });
    flushTo(ts, deleted + 999);
    expect((await req(`${pods}/q`)).body.metadata.deletionGracePeriodSeconds).toBe(1);
    flushTo(ts, deleted + 1000);
    const held = await req(`${pods}/q`);
    expect(held.body.metadata.deletionGracePeriodSeconds).toBe(0);
    await req(`${pods}/q`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    expect((await req(`${pods}/q`)).code).toBe(404);
  });
});
