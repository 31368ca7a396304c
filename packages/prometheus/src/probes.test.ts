import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject, VirtualTimeScheduler } from 'rxjs';
import { InvalidOptionsError, KubeApiError, type ReflectorStatus } from '@rxinformer/core';
import { createProbes } from './probes.ts';
import { probeResponse } from './probeServer.ts';

/** An informer whose status, resource version and sync the test sets, on virtual time. */
function fakeInformer() {
  const status = new BehaviorSubject<ReflectorStatus>({ phase: 'stopped', relistCount: 0, hasSynced: false });
  const informer = {
    status$: status.asObservable(),
    lastSyncResourceVersion: undefined as string | undefined,
    synced: false,
    hasSynced: () => informer.synced,
    getStore: () => ({ size: 0 }),
    set(patch: Partial<ReflectorStatus>) {
      status.next({ ...status.value, ...patch });
    },
    sync(rv: string) {
      informer.synced = true;
      informer.lastSyncResourceVersion = rv;
      informer.set({ phase: 'watching', hasSynced: true, lastSyncResourceVersion: rv });
    },
  };
  return informer;
}

function clock() {
  const scheduler = new VirtualTimeScheduler();
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.flush();
  };
  return { scheduler, advance };
}

describe('createProbes', () => {
  it('should be ready once every informer synced and every ready check passes', () => {
    const pods = fakeInformer();
    const nodes = fakeInformer();
    let leading = false;
    const probes = createProbes({ informers: { 'v1/pods': pods, 'v1/nodes': nodes }, readyChecks: { leading: () => leading } });
    expect(probes.readyz()).toEqual({
      ok: false,
      checks: [
        { name: 'informer v1/pods', ok: false, message: 'not synced' },
        { name: 'informer v1/nodes', ok: false, message: 'not synced' },
        { name: 'leading', ok: false, message: 'check failed' },
      ],
    });
    pods.sync('1');
    nodes.sync('1');
    expect(probes.readyz().ok).toBe(false);
    leading = true;
    expect(probes.readyz().ok).toBe(true);
    const late = fakeInformer();
    const remove = probes.addInformer('v1/late', late);
    expect(probes.readyz().ok).toBe(false);
    remove();
    expect(probes.readyz().ok).toBe(true);
  });

  it('should be ready once a factory has synced every informer it made', () => {
    let synced = false;
    const probes = createProbes({ factories: { main: { hasSynced: () => synced } } });
    expect(probes.readyz()).toEqual({ ok: false, checks: [{ name: 'factory main', ok: false, message: 'not synced' }] });
    synced = true;
    expect(probes.readyz()).toEqual({ ok: true, checks: [{ name: 'factory main', ok: true }] });
  });

  it('should fail healthz once a watch has been failing past the threshold, and pass again on progress', () => {
    const { scheduler, advance } = clock();
    const pods = fakeInformer();
    const probes = createProbes({ informers: { 'v1/pods': pods }, failingAfterMs: 60_000, scheduler });
    pods.sync('5');
    const error = new KubeApiError(503, { reason: 'ServiceUnavailable' });
    pods.set({ phase: 'backingOff', lastError: error, backoffMs: 800 });
    advance(30_000);
    pods.set({ phase: 'watching' }); // re-watching, the failure not yet behind it
    pods.set({ phase: 'backingOff', backoffMs: 1600 });
    advance(29_999);
    expect(probes.healthz().ok).toBe(true);
    advance(1);
    expect(probes.healthz()).toEqual({
      ok: false,
      checks: [{ name: 'informer v1/pods', ok: false, message: 'failing for 60 s: ServiceUnavailable: ' + error.message }],
    });
    pods.lastSyncResourceVersion = '6'; // an event arrived
    expect(probes.healthz().ok).toBe(true);
  });

  it('should fail healthz when a synced informer has heard nothing past the silence threshold', () => {
    const { scheduler, advance } = clock();
    const pods = fakeInformer();
    const probes = createProbes({ informers: { 'v1/pods': pods }, silentAfterMs: 120_000, scheduler });
    advance(500_000);
    expect(probes.healthz().ok).toBe(true); // not synced: not silent, only slow
    pods.sync('1');
    advance(100_000);
    pods.lastSyncResourceVersion = '2';
    expect(probes.healthz().ok).toBe(true);
    advance(119_999);
    expect(probes.healthz().ok).toBe(true);
    advance(1);
    expect(probes.healthz().checks[0]).toEqual({ name: 'informer v1/pods', ok: false, message: 'no event, bookmark or list for 120 s' });
    pods.set({ phase: 'stopped' });
    expect(probes.healthz().ok).toBe(true); // stopped on purpose
  });

  it('should not count objects of another type (an error without backoff) as failing', () => {
    const { scheduler, advance } = clock();
    const pods = fakeInformer();
    const probes = createProbes({ informers: { 'v1/pods': pods }, failingAfterMs: 1_000, scheduler });
    pods.sync('1');
    pods.set({ lastError: new Error('object of type v1 ConfigMap skipped') });
    advance(5_000);
    expect(probes.healthz().ok).toBe(true);
  });

  it('should run health checks of its own, a throwing one failing with its message', () => {
    const probes = createProbes({
      healthChecks: {
        fine: () => ({ ok: true }),
        broken: () => {
          throw new Error('boom');
        },
      },
    });
    expect(probes.healthz()).toEqual({
      ok: false,
      checks: [
        { name: 'fine', ok: true },
        { name: 'broken', ok: false, message: 'check threw: boom' },
      ],
    });
  });

  it('should refuse bad thresholds and duplicate informer names', () => {
    expect(() => createProbes({ failingAfterMs: 0 })).toThrow(/failingAfterMs/);
    expect(() => createProbes({ silentAfterMs: Number.NaN })).toThrow(/silentAfterMs/);
    const probes = createProbes({ informers: { a: fakeInformer() } });
    expect(() => probes.addInformer('a', fakeInformer())).toThrow(/already judge/);
  });

  it('should refuse an informer that is not one with an InvalidOptionsError', () => {
    // A TypeError (reading 'subscribe') before.
    for (const bad of [{}, null, { status$: {}, hasSynced: () => true }])
      expect(() => createProbes({ informers: { a: bad as never } })).toThrow(InvalidOptionsError);
  });
});

describe('probeResponse', () => {
  it('should answer ok when passed, and a line per check with the verdict when verbose or failed', () => {
    const passed = { ok: true, checks: [{ name: 'informer v1/pods', ok: true }] };
    expect(probeResponse('readyz', passed)).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok\n' });
    expect(probeResponse('readyz', passed, true).body).toBe('[+]informer v1/pods ok\nreadyz check passed\n');
    const failed = { ok: false, checks: [{ name: 'informer v1/pods', ok: false, message: 'not synced' }] };
    expect(probeResponse('readyz', failed)).toMatchObject({
      status: 500,
      body: '[-]informer v1/pods failed: not synced\nreadyz check failed\n',
    });
  });
});
