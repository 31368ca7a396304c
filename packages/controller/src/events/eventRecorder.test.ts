import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError, type KubeObject, type Status } from '@rxinformer/core';
import { TestScheduler } from 'rxjs/testing';
import type { ApiClient, ApiRequest } from '../client/apiClient.ts';
import { ApiError } from '../client/apiError.ts';
import { createEventRecorder, type EventRecorderOptions } from './eventRecorder.ts';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'a', name, uid: `uid-${name}` } });
const synced = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'in sync' } as const;
const MIN = 60_000;

/**
 * A client that records the requests (less GETs) and answers a POST with the Event and a uid, other
 * writes `{}`; 404 for events.k8s.io when `v1Only`; `fail` answers a request its error instead.
 */
function fakeClient(v1Only = false, fail?: (req: ApiRequest) => ApiError | undefined): ApiClient & { sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  let uid = 0;
  return {
    sent,
    request: <T>(req: ApiRequest) => {
      if (req.method !== 'GET') sent.push(req);
      if (v1Only && req.path.startsWith('/apis/events.k8s.io')) return Promise.reject(status(404, 'NotFound'));
      const error = fail?.(req);
      if (error) return Promise.reject(error);
      if (req.method !== 'POST') return Promise.resolve({} as T);
      const body = req.body as KubeObject;
      return Promise.resolve({ ...body, metadata: { ...body.metadata, uid: `event-uid-${++uid}` } } as T);
    },
  };
}

const status = (code: number, reason: string) => new ApiError(code, { status: { kind: 'Status', code, reason } as Status });

function setup(options: Partial<EventRecorderOptions> = {}, v1Only = false, fail?: (req: ApiRequest) => ApiError | undefined) {
  const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
  const client = fakeClient(v1Only, fail);
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
    expect(summary()).toEqual([
      'POST in sync',
      'PATCH {"metadata":{"uid":"event-uid-1"},"series":{"count":2,"lastObservedTime":"1970-01-01T00:00:01.000000Z"}}',
    ]);
    expect(client.sent[1].path).toBe(`/apis/events.k8s.io/v1/namespaces/a/events/${(client.sent[0].body as KubeObject).metadata!.name}`);
    await at(30_000);
    expect(summary()[2]).toBe(
      'PATCH {"metadata":{"uid":"event-uid-1"},"series":{"count":4,"lastObservedTime":"1970-01-01T00:00:02.000000Z"}}',
    );
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
    expect(client.sent[1].body).toEqual({ metadata: { uid: 'event-uid-1' }, count: 2, lastTimestamp: '1970-01-01T00:00:00Z' });
    await recorder.stop();
  });

  it("should cut a note to the API's limit, 1,024 bytes of UTF-8, between characters", async () => {
    const { recorder, at, client } = setup();
    recorder.event(cm('x'), { ...synced, note: 'n'.repeat(5000) });
    recorder.event(cm('x'), { ...synced, note: 'é'.repeat(1500) });
    recorder.event(cm('x'), { ...synced, note: `a${'😀'.repeat(600)}` });
    await at(0);
    expect(client.sent.map((r) => (r.body as { note: string }).note)).toEqual(['n'.repeat(1024), 'é'.repeat(512), `a${'😀'.repeat(255)}`]);
    await recorder.stop();
  });

  it('should name the Events of two recorders in the same millisecond apart, as valid names', async () => {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    const client = fakeClient();
    const recorders = ['ctl-1', 'ctl-2'].map((reportingInstance) =>
      createEventRecorder({ client, reportingController: 'example.com/ctl', reportingInstance, scheduler, burst: 40 }),
    );
    for (let i = 0; i < 20; i++) for (const r of recorders) r.event(cm('x'), { ...synced, note: `event ${i}` });
    await Promise.all(recorders.map((r) => r.stop()));
    const names = client.sent.map((r) => (r.body as KubeObject).metadata!.name!);
    expect(names).toHaveLength(40);
    expect(new Set(names).size).toBe(40);
    for (const name of names) expect(name).toMatch(/^x\.0-[0-9a-f]{13,}$/);
  });

  it('should never count a repeat in an Event it did not create, and create the next occurrence anew', async () => {
    const taken = (req: ApiRequest) =>
      req.method === 'POST' && (req.body as { note?: string }).note === 'taken' ? status(409, 'AlreadyExists') : undefined;
    const errors: unknown[] = [];
    const { recorder, at, client, summary } = setup({ onError: (e) => void errors.push(e) }, false, taken);
    recorder.event(cm('x'), { ...synced, note: 'taken' }); // refused: another Event has the name
    recorder.event(cm('x'), { ...synced, note: 'taken' }); // its repeat: not written anywhere
    await at(1000);
    expect(summary()).toEqual(['POST taken']);
    expect(errors).toHaveLength(1);
    recorder.event(cm('x'), { ...synced, note: 'taken' });
    await at(2000);
    expect(client.sent.map((r) => r.method)).toEqual(['POST', 'POST']);
    await recorder.stop();
  });

  it.each([
    [404, 'NotFound'],
    [409, 'Conflict'],
    [422, 'Invalid'], // kube-apiserver's answer to a merge patch with another uid
  ])('should write a count on condition of the uid, and end the series on a %i', async (code, reason) => {
    const gone = (req: ApiRequest) => (req.method === 'PATCH' ? status(code, reason) : undefined);
    const { recorder, at, client } = setup({ onError: () => {} }, false, gone);
    recorder.event(cm('x'), synced);
    recorder.event(cm('x'), synced); // the PATCH, refused: not our Event any more
    await at(1000);
    recorder.event(cm('x'), synced); // a new Event, not a count in the refused one
    await at(2000);
    expect(client.sent.map((r) => [r.method, r.method === 'PATCH' ? r.body : undefined])).toEqual([
      ['POST', undefined],
      ['PATCH', { metadata: { uid: 'event-uid-1' }, series: { count: 2, lastObservedTime: '1970-01-01T00:00:00.000000Z' } }],
      ['POST', undefined],
    ]);
    await recorder.stop();
  });

  it('should keep at most maxEntries series, forgetting the least recently seen after writing its count', async () => {
    const { recorder, at, client } = setup({ maxEntries: 3 });
    const sent = () =>
      client.sent.map(
        (r) =>
          `${r.method} ${r.method === 'POST' ? (r.body as { note: string }).note : (r.body as { series: { count: number } }).series.count}`,
      );
    recorder.event(cm('x'), { ...synced, note: 'a' });
    recorder.event(cm('x'), { ...synced, note: 'b' });
    recorder.event(cm('x'), { ...synced, note: 'a' }); // count 2, written at once
    recorder.event(cm('x'), { ...synced, note: 'a' }); // count 3, pending; a is now the most recent
    recorder.event(cm('x'), { ...synced, note: 'c' });
    await at(0);
    expect(sent()).toEqual(['POST a', 'POST b', 'POST c', 'PATCH 2']);
    recorder.event(cm('x'), { ...synced, note: 'd' }); // a fourth: b, the least recently seen, is forgotten
    recorder.event(cm('x'), { ...synced, note: 'e' }); // a fifth: a is forgotten, its count 3 written first
    await at(1);
    expect(sent().slice(4)).toEqual(['POST d', 'POST e', 'PATCH 3']);
    recorder.event(cm('x'), { ...synced, note: 'b' }); // forgotten: a new Event
    recorder.event(cm('x'), { ...synced, note: 'e' }); // kept: a count
    await at(2);
    expect(sent().slice(7)).toEqual(['POST b', 'PATCH 2']);
    await recorder.stop();
  });

  it('should keep no server answer: only what a count needs', async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const answers: WeakRef<object>[] = [];
    const sent: ApiRequest[] = [];
    const client: ApiClient = {
      request: <T>(req: ApiRequest) => {
        sent.push(req);
        const answer = { ...(req.body as object), metadata: { uid: `uid-${sent.length}`, annotations: { big: 'x'.repeat(16_384) } } };
        answers.push(new WeakRef(answer));
        return Promise.resolve(answer as T);
      },
    };
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    const options = {
      client,
      api: 'events.k8s.io/v1',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      scheduler,
    } as const;
    const recorder = createEventRecorder(options);
    try {
      for (let i = 0; i < 10; i++) recorder.event(cm(`o${i}`), synced);
      await recorder.flush();
      await new Promise((resolve) => setTimeout(resolve, 0)); // WeakRefs are held until the job ends
      gc();
      expect(answers).toHaveLength(10);
      expect(answers.filter((a) => a.deref() !== undefined)).toHaveLength(0);
      // what was kept still serves a count: the Event's uid
      recorder.event(cm('o3'), synced);
      await recorder.flush();
      expect(sent[10]).toMatchObject({ method: 'PATCH', body: { metadata: { uid: 'uid-4' }, series: { count: 2 } } });
    } finally {
      await recorder.stop();
    }
  });

  it('should write nothing after stop, and refuse bad options', async () => {
    const { recorder, at, client } = setup();
    await recorder.stop();
    recorder.event(cm('x'), synced);
    await at(100);
    expect(client.sent).toEqual([]);
    expect(() => createEventRecorder({ client, reportingController: '', reportingInstance: 'i' })).toThrow(InvalidOptionsError);
    expect(() => createEventRecorder({ client, reportingController: 'c', reportingInstance: 'i', burst: 0 })).toThrow(/burst/);
    for (const maxEntries of [0, 1.5, -1, NaN, Infinity])
      expect(() => createEventRecorder({ client, reportingController: 'c', reportingInstance: 'i', maxEntries })).toThrow(
        expect.objectContaining({
          name: 'InvalidOptionsError',
          reason: 'InvalidOptions',
          message: expect.stringMatching(/^maxEntries must be an integer >= 1/),
        }),
      );
  });
});
