import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError, type KubeObject, type Status } from '@rxinformer/core';
import { TestScheduler } from 'rxjs/testing';
import type { ApiClient, ApiRequest } from './apiClient.ts';
import { ApiError } from './apiError.ts';
import { createEventRecorder, type EventRecorderOptions } from './eventRecorder.ts';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'a', name, uid: `uid-${name}` } });
const synced = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'in sync' } as const;
const MIN = 60_000;

/** A client that records the requests (less GETs) and answers `{}`, or 404 for events.k8s.io when `v1Only`. */
function fakeClient(v1Only = false): ApiClient & { sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  return {
    sent,
    request: <T>(req: ApiRequest) => {
      if (req.method !== 'GET') sent.push(req);
      if (v1Only && req.path.startsWith('/apis/events.k8s.io'))
        return Promise.reject(new ApiError(404, { status: { kind: 'Status', code: 404, reason: 'NotFound' } as Status }));
      return Promise.resolve({} as T);
    },
  };
}

function setup(options: Partial<EventRecorderOptions> = {}, v1Only = false) {
  const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
  const client = fakeClient(v1Only);
  const recorder = createEventRecorder({
    client,
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    scheduler,
    ...options,
  });
  /** Moves virtual time to `ms` (running the timers due) and lets the writes settle. */
  const at = async (ms: number) => {
    scheduler.maxFrames = ms;
    scheduler.flush();
    scheduler.frame = ms; // `now()` reads the frame
    await new Promise((resolve) => setTimeout(resolve, 0)); // the fake client's answers, not a flush
  };
  const summary = () =>
    client.sent.map(
      (r) =>
        `${r.method} ${r.method === 'PATCH' ? JSON.stringify(r.body) : ((r.body as { note?: string; message?: string }).note ?? (r.body as { message?: string }).message)}`,
    );
  return { scheduler, client, recorder, at, summary };
}

describe('the event recorder', () => {
  it('should create an events.k8s.io/v1 Event, then count its repeats in a series until the window passes', async () => {
    const { recorder, at, client, summary } = setup({ seriesWindowMs: 6 * MIN, seriesRefreshMs: 30_000 });
    recorder.event(cm('x'), synced);
    await at(0);
    expect(client.sent[0]).toMatchObject({
      method: 'POST',
      path: '/apis/events.k8s.io/v1/namespaces/a/events',
      body: {
        eventTime: '1970-01-01T00:00:00.000000Z',
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'x', uid: 'uid-x' },
        ...synced,
      },
    });
    await at(1000);
    recorder.event(cm('x'), synced); // the second occurrence: written at once
    await at(2000);
    recorder.event(cm('x'), synced); // the third and fourth: counted, written at the refresh
    recorder.event(cm('x'), synced);
    await at(29_000);
    expect(summary()).toEqual(['POST in sync', 'PATCH {"series":{"count":2,"lastObservedTime":"1970-01-01T00:00:01.000000Z"}}']);
    expect(client.sent[1].path).toBe(`/apis/events.k8s.io/v1/namespaces/a/events/${(client.sent[0].body as KubeObject).metadata!.name}`);
    await at(30_000);
    expect(summary()[2]).toBe('PATCH {"series":{"count":4,"lastObservedTime":"1970-01-01T00:00:02.000000Z"}}');
    // Past the window: a new Event.
    await at(2000 + 6 * MIN + 1);
    recorder.event(cm('x'), synced);
    await at(2000 + 6 * MIN + 2);
    expect(summary().slice(3)).toEqual(['POST in sync']);
    await recorder.stop();
  });

  it('should keep events apart that differ in object, reason or note', async () => {
    const { recorder, at, summary } = setup();
    recorder.event(cm('x'), synced);
    recorder.event(cm('y'), synced);
    recorder.event(cm('x'), { ...synced, note: 'other' });
    recorder.event(cm('x'), { ...synced, type: 'Warning' });
    await at(10);
    expect(summary()).toEqual(['POST in sync', 'POST in sync', 'POST other', 'POST in sync']);
    await recorder.stop();
  });

  it('should drop events of an object past its burst, and allow one more per refill period', async () => {
    const { recorder, at, client } = setup({ burst: 3, refillMs: 5 * MIN });
    for (let i = 0; i < 5; i++) recorder.event(cm('x'), { ...synced, note: `n${i}` });
    recorder.event(cm('y'), synced);
    await at(0);
    expect(client.sent.map((r) => (r.body as { note: string }).note)).toEqual(['n0', 'n1', 'n2', 'in sync']);
    expect(recorder.dropped).toBe(2);
    await at(5 * MIN);
    recorder.event(cm('x'), { ...synced, note: 'later' });
    recorder.event(cm('x'), { ...synced, note: 'too soon' });
    await at(5 * MIN + 1);
    expect(client.sent.map((r) => (r.body as { note: string }).note).slice(4)).toEqual(['later']);
    expect(recorder.dropped).toBe(3);
    await recorder.stop();
  });

  it('should write core/v1 Events where the server has no events.k8s.io', async () => {
    const { recorder, at, client } = setup({}, true);
    recorder.event(cm('x'), synced);
    recorder.event(cm('x'), synced);
    await at(1500);
    expect(client.sent.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/api/v1/namespaces/a/events'],
      ['PATCH', expect.stringMatching(/^\/api\/v1\/namespaces\/a\/events\/x\./)],
    ]);
    expect(client.sent[0].body).toMatchObject({
      involvedObject: { name: 'x' },
      message: 'in sync',
      count: 1,
      source: { component: 'example.com/ctl' },
    });
    expect(client.sent[1].body).toEqual({ count: 2, lastTimestamp: '1970-01-01T00:00:00Z' });
    await recorder.stop();
  });

  it("should cut a note to the API's 1 kB limit", async () => {
    const { recorder, at, client } = setup();
    recorder.event(cm('x'), { ...synced, note: 'n'.repeat(5000) });
    await at(0);
    expect((client.sent[0].body as { note: string }).note).toHaveLength(1024);
    await recorder.stop();
  });

  it('should write nothing after stop, and refuse bad options', async () => {
    const { recorder, at, client } = setup();
    await recorder.stop();
    recorder.event(cm('x'), synced);
    await at(100);
    expect(client.sent).toEqual([]);
    expect(() => createEventRecorder({ client, reportingController: '', reportingInstance: 'i' })).toThrow(InvalidOptionsError);
    expect(() => createEventRecorder({ client, reportingController: 'c', reportingInstance: 'i', burst: 0 })).toThrow(/burst/);
  });
});
