import { describe, expect, it } from '@jest/globals';
import { Registry, register } from 'prom-client';
import { BehaviorSubject, Subject, VirtualTimeScheduler } from 'rxjs';
import { InvalidOptionsError, KubeApiError, RequestTimeoutError, WatchIdleError, type ReflectorStatus } from '@rxinformer/core';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { informerMetrics } from './informerMetrics.ts';
import { leaderElectionMetrics } from './leaderElectionMetrics.ts';
import { workqueueMetrics } from './workqueueMetrics.ts';

/** An informer driven by the test through its status, on virtual time. */
function fakeInformer() {
  const status = new BehaviorSubject<ReflectorStatus>({ phase: 'stopped', relistCount: 0, hasSynced: false });
  const informer = {
    status$: status.asObservable(),
    lastSyncResourceVersion: undefined as string | undefined,
    size: 0,
    hasSynced: () => status.value.hasSynced,
    getStore: () => ({ size: informer.size }),
    set(patch: Partial<ReflectorStatus>) {
      status.next({ ...status.value, ...patch });
    },
  };
  return informer;
}

function setup() {
  const scheduler = new VirtualTimeScheduler();
  const registry = new Registry();
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.flush();
  };
  const scrape = async () => parseExposition(await registry.metrics());
  return { scheduler, registry, advance, scrape };
}

describe('informerMetrics', () => {
  it('should count lists, watches, relists and failures by reason from the status, and time the first sync', async () => {
    const { scheduler, registry, advance, scrape } = setup();
    const pods = fakeInformer();
    informerMetrics(pods, { name: 'v1/pods', registry, scheduler });
    const labels = { informer: 'v1/pods' };
    pods.set({ phase: 'listing', listProgress: { pages: 0, items: 0 } });
    pods.set({ listProgress: { pages: 1, items: 500 } });
    advance(1_500);
    pods.size = 700;
    pods.set({ phase: 'watching', hasSynced: true, lastSyncResourceVersion: '10', listProgress: undefined });
    advance(2_000);
    const idle = new WatchIdleError(330_000);
    pods.set({ lastError: idle }); // a re-watch after an idle stream: same session
    pods.set({ phase: 'backingOff', lastError: new KubeApiError(503) });
    pods.set({ phase: 'watching' });
    pods.set({
      phase: 'listing',
      relistCount: 1,
      lastError: new KubeApiError(410, { reason: 'Expired' }),
      listProgress: { pages: 0, items: 0 },
    });
    pods.set({ listProgress: { pages: 0, items: 0 }, relistCount: 1 }); // the same list: not counted again
    const e = await scrape();
    expect(sampleValue(e, 'rxinformer_informer_lists_total', labels)).toBe(2);
    expect(sampleValue(e, 'rxinformer_informer_watches_total', labels)).toBe(2);
    expect(sampleValue(e, 'rxinformer_informer_relists_total', labels)).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'WatchIdle' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'ServiceUnavailable' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'Expired' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_initial_sync_seconds', labels)).toBe(1.5);
    expect(sampleValue(e, 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBe(2);
    expect(sampleValue(e, 'rxinformer_informer_objects', labels)).toBe(700);
    expect(sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'listing' })).toBe(1);
  });

  it('should count a watch session once through its connecting phase and re-watches, and show connecting on the gauge', async () => {
    const { registry, scheduler, scrape } = setup();
    const pods = fakeInformer();
    informerMetrics(pods, { name: 'v1/pods', registry, scheduler });
    const labels = { informer: 'v1/pods' };
    pods.set({ phase: 'listing', listProgress: { pages: 0, items: 0 } });
    pods.set({ phase: 'connecting', hasSynced: true, lastSyncResourceVersion: '10', listProgress: undefined });
    let e = await scrape();
    expect(sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'connecting' })).toBe(1);
    expect(sampleValue(e, 'rxinformer_informer_phase', { ...labels, phase: 'watching' })).toBe(0);
    pods.set({ phase: 'watching' });
    pods.set({ phase: 'connecting' }); // the server closed the watch: a re-watch, same session
    pods.set({ phase: 'watching' });
    const notOpened = new RequestTimeoutError('/api/v1/pods?watch=true', 10_000, { reason: 'WatchNotOpened' });
    pods.set({ phase: 'backingOff', lastError: notOpened });
    pods.set({ phase: 'connecting' }); // a new session after the failure
    pods.set({ phase: 'watching' });
    e = await scrape();
    expect(sampleValue(e, 'rxinformer_informer_watches_total', labels)).toBe(2);
    expect(sampleValue(e, 'rxinformer_informer_errors_total', { ...labels, reason: 'WatchNotOpened' })).toBe(1);
  });

  it('should see the resource version move between scrapes, as watch events move it', async () => {
    const { scheduler, registry, advance, scrape } = setup();
    const pods = fakeInformer();
    informerMetrics(pods, { name: 'v1/pods', registry, scheduler });
    const labels = { informer: 'v1/pods' };
    expect(hasSample(await scrape(), 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBe(false);
    pods.set({ phase: 'watching', hasSynced: true, lastSyncResourceVersion: '1' });
    advance(10_000);
    expect(sampleValue(await scrape(), 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBe(10);
    pods.lastSyncResourceVersion = '2';
    expect(sampleValue(await scrape(), 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBe(0);
    advance(3_000);
    expect(sampleValue(await scrape(), 'rxinformer_informer_last_sync_resource_version_age_seconds', labels)).toBe(3);
  });

  it('should not time a first sync it did not see start', async () => {
    const { scheduler, registry, scrape } = setup();
    const pods = fakeInformer();
    pods.set({ phase: 'listing', listProgress: { pages: 0, items: 0 } });
    informerMetrics(pods, { name: 'v1/pods', registry, scheduler });
    pods.set({ phase: 'watching', hasSynced: true, lastSyncResourceVersion: '1' });
    const e = await scrape();
    expect(hasSample(e, 'rxinformer_informer_initial_sync_seconds', { informer: 'v1/pods' })).toBe(false);
    expect(sampleValue(e, 'rxinformer_informer_lists_total', { informer: 'v1/pods' })).toBe(0);
  });

  it('should refuse missing options with an InvalidOptionsError, registering nothing', () => {
    // A TypeError (reading 'scheduler', 'name') before, after the families were registered.
    const missing = undefined as never;
    expect(() => informerMetrics(fakeInformer(), missing)).toThrow(InvalidOptionsError);
    expect(() => workqueueMetrics(new WorkQueue<string>(), missing)).toThrow(InvalidOptionsError);
    expect(() => leaderElectionMetrics(new Subject<boolean>(), missing)).toThrow(InvalidOptionsError);
    expect(register.getMetricsAsArray()).toEqual([]); // the global registry, the default
  });

  it("should keep the reason label to Kubernetes' reasons, whatever reason a server writes in its Status", async () => {
    const { registry, scheduler, scrape } = setup();
    const pods = fakeInformer();
    informerMetrics(pods, { name: 'v1/pods', registry, scheduler });
    for (let i = 0; i < 100; i++) {
      pods.set({ phase: 'backingOff', lastError: new KubeApiError(500, { status: { reason: `Made-up-${i}` } }) });
      pods.set({ phase: 'listing' });
    }
    pods.set({ phase: 'backingOff', lastError: new KubeApiError(429, { status: { reason: 'TooManyRequests' } }) });
    const series = (await scrape()).samples.filter((x) => x.name === 'rxinformer_informer_errors_total');
    // A series per answer before: 101.
    expect(series.map((x) => [x.labels.reason, x.value])).toEqual([
      ['InternalError', 100],
      ['TooManyRequests', 1],
    ]);
  });

  it('should drop the series and stop following on unregister', async () => {
    const { registry, scrape } = setup();
    const pods = fakeInformer();
    const metrics = informerMetrics(pods, { name: 'v1/pods', registry });
    metrics.unregister();
    expect((await scrape()).samples).toEqual([]);
    expect(() => informerMetrics(null as never, { name: 'x', registry })).toThrow(/needs a shared informer/);
  });
});
