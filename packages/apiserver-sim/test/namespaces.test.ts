/** Namespace deletion as a real cluster does it: Terminating first, contents next, the namespace last. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/index.ts';
import { openWatch, req, type WatchReader } from './helpers.ts';
import { flushTo, pod, testScheduler } from '@rxinformer/testing';

describe('namespace deletion', () => {
  let sim: ApiServer;
  const open: WatchReader[] = [];
  let ts: ReturnType<typeof testScheduler>; // the namespace controller's passes run in virtual time
  const start = async (options: ApiServerOptions = {}) => {
    ts = testScheduler();
    sim = await startApiServer({ port: 0, seed: 9, scheduler: ts, ...options });
    await req(`${sim.url}/api/v1/namespaces`, { method: 'POST', body: { metadata: { name: 'ns1' } } });
    await req(`${sim.url}/api/v1/namespaces/ns1/pods`, { method: 'POST', body: pod('x', { namespace: 'ns1' }) });
  };
  const watch = async (path: string) => {
    const w = await openWatch(`${sim.url}${path}?watch=true&resourceVersion=${sim.storage.resourceVersion}`);
    open.push(w);
    return w;
  };
  afterEach(async () => {
    for (const w of open.splice(0)) w.close();
    await sim.close();
  });

  it('should answer DELETE with the Terminating namespace, then delete its contents, then the namespace', async () => {
    await start();
    const nsWatch = await watch('/api/v1/namespaces');
    const podWatch = await watch('/api/v1/pods');
    const del = await req(`${sim.url}/api/v1/namespaces/ns1`, { method: 'DELETE' });
    expect(del.code).toBe(200);
    expect(del.body.kind).toBe('Namespace');
    expect(del.body.status.phase).toBe('Terminating');
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    flushTo(ts, ts.now()); // the namespace controller's pass, due at once
    const nsEvents = await nsWatch.waitFor(2);
    const [podDeleted] = await podWatch.waitFor(1);
    expect(
      nsEvents.map((e) => `${e.type} ${e.object.metadata?.name} ${(e.object as { status?: { phase?: string } }).status?.phase}`),
    ).toEqual(['MODIFIED ns1 Terminating', 'DELETED ns1 Terminating']);
    expect(nsEvents[1].object.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(podDeleted.type).toBe('DELETED');
    const rv = (e: { object: { metadata?: { resourceVersion?: string } } }) => Number(e.object.metadata?.resourceVersion);
    expect(rv(nsEvents[0])).toBe(Number(del.body.metadata.resourceVersion));
    expect(rv(nsEvents[0])).toBeLessThan(rv(podDeleted));
    expect(rv(podDeleted)).toBeLessThan(rv(nsEvents[1]));
    expect((await req(`${sim.url}/api/v1/namespaces/ns1`)).code).toBe(404);
  });

  it('should refuse creates in a terminating namespace with 403 Forbidden and a second DELETE with 409', async () => {
    await start({ namespaceDeletionDelayMs: 60_000 });
    await req(`${sim.url}/api/v1/namespaces/ns1`, { method: 'DELETE' });
    const create = await req(`${sim.url}/api/v1/namespaces/ns1/configmaps`, { method: 'POST', body: { metadata: { name: 'late' } } });
    expect(create.code).toBe(403);
    expect(create.body).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps "late" is forbidden: unable to create new content in namespace ns1 because it is being terminated',
      details: {
        name: 'late',
        kind: 'configmaps',
        causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns1 is being terminated', field: 'metadata.namespace' }],
      },
    });
    const again = await req(`${sim.url}/api/v1/namespaces/ns1`, { method: 'DELETE' });
    expect(again.code).toBe(409);
    expect(again.body.message).toBe(
      'Operation cannot be fulfilled on namespaces "ns1": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
    );
    expect((await req(`${sim.url}/api/v1/namespaces/ns1/pods/x`)).code).toBe(200);
  });

  it('should keep a terminating namespace while a finalizer holds an object in it', async () => {
    await start();
    const cms = `${sim.url}/api/v1/namespaces/ns1/configmaps`;
    await req(cms, { method: 'POST', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const deleted = ts.now();
    await req(`${sim.url}/api/v1/namespaces/ns1`, { method: 'DELETE' });
    flushTo(ts, deleted + 2500); // the first pass, and retries every simulated second
    expect((await req(`${sim.url}/api/v1/namespaces/ns1/pods/x`)).code).toBe(404);
    const held = await req(`${cms}/held`);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    expect((await req(`${sim.url}/api/v1/namespaces/ns1`)).body.status.phase).toBe('Terminating');
    await req(`${cms}/held`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    expect((await req(`${sim.url}/api/v1/namespaces/ns1`)).code).toBe(200);
    flushTo(ts, deleted + 3000); // the next retry finds it empty
    expect((await req(`${sim.url}/api/v1/namespaces/ns1`)).code).toBe(404);
  });
});
