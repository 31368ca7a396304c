/**
 * The informer metrics and the probes end to end over real HTTP: a shared informer against the
 * simulator through the fetch ListerWatcher, its metrics and probes served by `serveProbes`, scraped
 * and parsed line by line as Prometheus would read them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { createSharedInformer, fetchListerWatcher, type KubeObject, type SharedInformer } from '@rxinformer/core';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { createProbes, informerMetrics, serveProbes, type ProbeServer } from '../src/index.ts';
import { parseExposition, sampleValue } from './exposition.ts';

/** Polls `check` every 10 ms, 500 times at most. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('informer metrics and probes against the simulator', () => {
  let sim: ApiServer;
  let server: ProbeServer | undefined;
  let informer: SharedInformer<KubeObject> | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 3, bookmarkIntervalMs: 100 });
    for (let i = 0; i < 5; i++) sim.storage.create('configmaps', { metadata: { name: `cm-${i}` }, data: { i: String(i) } }, 'default');
  });
  afterEach(async () => {
    informer?.shutdown();
    await server?.close();
  });
  afterAll(async () => {
    await sim.close();
  });

  const configMaps = (headers?: Record<string, string>) =>
    createSharedInformer(fetchListerWatcher({ baseUrl: sim.url, path: '/api/v1/namespaces/default/configmaps', headers }), {
      reflector: { backoff: { initialMs: 10, maxMs: 50 }, minWatchTimeoutSeconds: 30 },
    });
  const get = async (path: string) => {
    const r = await fetch(server!.url + path);
    return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
  };
  const scrape = async () => parseExposition((await get('/metrics')).body);

  it('should serve readiness once synced, and the informer and handler figures on /metrics', async () => {
    const registry = new Registry();
    informer = configMaps();
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
    const e = await scrape();
    const labels = { informer: 'v1/configmaps' };
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

  it('should count relists and failures by reason when the server compacts and fails', async () => {
    const registry = new Registry();
    informer = configMaps();
    informerMetrics(informer, { name: 'v1/configmaps', registry });
    server = await serveProbes({ registry });
    informer.start();
    await until(() => informer!.hasSynced());
    sim.storage.update('configmaps', { metadata: { name: 'cm-0' }, data: { i: 'x' } }, 'default', 'cm-0');
    sim.faults.compact(); // the next watch from an old revision: ERROR 410 Expired
    sim.faults.failNext(1, { code: 500, on: 'list' });
    sim.faults.dropWatches();
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
  });

  it('should fail healthz while the server refuses the list past the threshold, and pass once it recovers', async () => {
    sim.faults.setAuth({ token: 'probe-test' });
    informer = configMaps({ Authorization: 'Bearer probe-test' });
    server = await serveProbes({ probes: createProbes({ informers: { 'v1/configmaps': informer }, failingAfterMs: 1 }), registry: null });
    sim.faults.forbid('configmaps');
    try {
      informer.start();
      await until(async () => (await get('/healthz')).status === 500);
      const health = await get('/healthz');
      expect(health.status).toBe(500);
      expect(health.body).toMatch(/^\[-\]informer v1\/configmaps failed: failing for \d+ s: Forbidden: .*\nhealthz check failed\n$/);
      sim.faults.allow('configmaps');
      await until(async () => (await get('/healthz')).status === 200 && informer!.hasSynced());
      expect(await get('/livez')).toMatchObject({ status: 200, body: 'ok\n' });
    } finally {
      sim.faults.setAuth(undefined);
    }
    expect((await get('/metrics')).status).toBe(404); // registry: null
  });

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
