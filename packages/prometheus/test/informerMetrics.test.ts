/**
 * The informer metrics and the probes end to end over real HTTP: a shared informer against the
 * simulator and a real kube-apiserver (behind the fault proxy) through the fetch ListerWatcher, its
 * metrics and probes served by `serveProbes`, scraped and parsed line by line as Prometheus would
 * read them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { createSharedInformer, fetchListerWatcher, type KubeObject, type SharedInformer } from '@rxinformer/core';
import type { ReflectorOptions } from '@rxinformer/core/reflector';
import { restrictedAccess, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { createProbes, informerMetrics, serveProbes, type ProbeServer } from '../src/index.ts';
import { parseExposition, sampleValue } from './exposition.ts';

/** Polls `check` every 10 ms until it holds, for 30 s at most. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !(await check());) await new Promise((r) => setTimeout(r, 10));
}

let server: ProbeServer | undefined;
const get = async (path: string) => {
  const r = await fetch(server!.url + path);
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
};
const scrape = async () => parseExposition((await get('/metrics')).body);

describe.each(serverKinds())('informer metrics and probes against the %s server', (kind) => {
  let api: TestServer;
  let informer: SharedInformer<KubeObject> | undefined;
  beforeAll(async () => {
    api = await startTestServer(kind, { sim: { seed: 3, bookmarkIntervalMs: 100, auth: { token: 'probe-test' } } });
  }, START_TIMEOUT_MS);
  afterEach(async () => {
    informer?.shutdown();
    await server?.close();
  });
  afterAll(() => api?.close());

  /** A namespace of five configmaps. */
  const namespace = async () => {
    const ns = await api.namespace('metrics');
    for (let i = 0; i < 5; i++)
      await api.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
    return ns;
  };
  const configMaps = (ns: string, token?: string, reflector: ReflectorOptions = {}) =>
    createSharedInformer(fetchListerWatcher({ ...api.fetchOptions({ token }), path: `/api/v1/namespaces/${ns}/configmaps` }), {
      reflector: { backoff: { initialMs: 10, maxMs: 50 }, minWatchTimeoutSeconds: 30, ...reflector },
    });

  it('should serve readiness once synced, and the informer and handler figures on /metrics', async () => {
    const registry = new Registry();
    informer = configMaps(await namespace());
    const handler = informer.addEventHandler({ onAdd: () => undefined }, { name: 'count' });
    informerMetrics(informer, { name: 'v1/configmaps', registry, handlers: [handler] });
    server = await serveProbes({ probes: createProbes({ informers: { 'v1/configmaps': informer } }), registry });
    expect(await get('/readyz')).toEqual({
      status: 500,
      type: 'text/plain; charset=utf-8',
      body: '[-]informer v1/configmaps failed: not synced\nreadyz check failed\n',
    });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    informer.start();
    await until(async () => (await get('/readyz')).status === 200);
    expect(await get('/readyz?verbose')).toMatchObject({ status: 200, body: '[+]informer v1/configmaps ok\nreadyz check passed\n' });
    await until(() => handler.hasSynced());
    const labels = { informer: 'v1/configmaps' };
    // Synced, and then the watch opens: `connecting` until its response headers are in.
    await until(async () => sampleValue(await scrape(), 'rxinformer_informer_phase', { ...labels, phase: 'watching' }) === 1);
    const e = await scrape();
    expect(e.families.get('rxinformer_informer_lists_total')).toMatchObject({ type: 'counter' });
    expect(sampleValue(e, 'rxinformer_informer_synced', labels)).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_objects', labels)).toBe(5);
    expect(sampleValue(e, 'rxinformer_informer_lists_total', labels)).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_watches_total', labels)).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_relists_total', labels)).toBe(0);
    expect(sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'watching' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'listing' })).toBe(0);
    expect(sampleValue(e, 'rxinformer_informer_initial_sync_seconds', labels)).toBeGreaterThanOrEqual(0);
    expect(sampleValue(e, 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBeGreaterThanOrEqual(0);
    const h = { ...labels, handler: 'count' };
    expect(sampleValue(e, 'rxinformer_handler_notifications_total', h)).toBe(5);
    expect(sampleValue(e, 'rxinformer_handler_queue_depth', h)).toBe(0);
    expect(sampleValue(e, 'rxinformer_handler_errors_total', h)).toBe(0);
    handler.remove();
    expect((await scrape()).samples.some((s) => s.labels.handler === 'count')).toBe(false);
  });

  it('should count relists and failures by reason when the server restarts and fails', async () => {
    const ns = await namespace();
    const registry = new Registry();
    informer = configMaps(ns, undefined, { useStreamingList: false }); // its relist pages: the 500 below is a list's
    informerMetrics(informer, { name: 'v1/configmaps', registry });
    server = await serveProbes({ registry });
    informer.start();
    await until(() => informer!.hasSynced());
    // A change the informer does not see (its watches refused), then a restart: the server's watch
    // history starts after that change, so resuming is a 410 Expired; the relist then meets a 500.
    api.proxy.failNext(1_000_000, { code: 503, on: 'watch' });
    api.proxy.cut();
    await api.api.update(`/api/v1/namespaces/${ns}/configmaps/cm-0`, { metadata: { name: 'cm-0' }, data: { i: 'x' } });
    await api.restart();
    api.proxy.clear();
    api.proxy.failNext(1, { code: 500, on: 'list' });
    const labels = { informer: 'v1/configmaps' };
    await until(async () => {
      const e = await scrape();
      return (
        sampleValue(e, 'rxinformer_informer_relists_total', labels) >= 1 &&
        sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'watching' }) === 1
      );
    });
    const e = await scrape();
    expect(sampleValue(e, 'rxinformer_informer_relists_total', labels)).toBeGreaterThanOrEqual(1);
    expect(sampleValue(e, 'rxinformer_informer_lists_total', labels)).toBeGreaterThanOrEqual(2);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'Expired' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'InternalError' })).toBe(1);
    expect(informer.getStore().get(`${ns}/cm-0`)).toMatchObject({ data: { i: 'x' } });
  }, 60_000);

  it('should fail healthz while the server refuses the list past the threshold, and pass once it recovers', async () => {
    const ns = await namespace();
    // Authenticated, not authorized (a ServiceAccount without RBAC on kube-apiserver) until allowed.
    const access = await restrictedAccess(api, ns, { resource: 'configmaps' });
    informer = configMaps(ns, access.token);
    server = await serveProbes({ probes: createProbes({ informers: { 'v1/configmaps': informer }, failingAfterMs: 1 }), registry: null });
    informer.start();
    await until(async () => (await get('/healthz')).status === 500);
    const health = await get('/healthz');
    expect(health.status).toBe(500);
    expect(health.body).toMatch(
      /^\[-\]informer v1\/configmaps failed: failing for \d+ s: Forbidden: configmaps is forbidden.*\nhealthz check failed\n$/,
    );
    await access.allow();
    await until(async () => (await get('/healthz')).status === 200 && informer!.hasSynced());
    expect(await get('/livez')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(informer.hasSynced()).toBe(true);
    expect((await get('/metrics')).status).toBe(404); // registry: null
  });
});

describe('the probe server', () => {
  afterEach(() => server?.close());

  it('should answer 405 to other methods, HEAD without a body, and 404 elsewhere', async () => {
    server = await serveProbes({ probes: createProbes(), registry: new Registry() });
    expect((await fetch(`${server.url}/readyz`, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await head.text()).toBe('');
    expect((await get('/other')).status).toBe(404);
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok\n' });
  });
});
