import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import type { KubeObject } from '@rxinformer/core';
import { createLoadGenerator, type ChurnTarget } from './loadGenerator.ts';
import { httpChurnTarget } from './httpChurnTarget.ts';
import { seededRandom } from './random.ts';
import { startApiServer, type ApiServer } from './index.ts';
import { until, virtualClock } from '@rxinformer/testing';

/** A Map of pods behind a target; `delay` makes every call asynchronous (a few turns of the event loop). */
function mapTarget(options: { delay?: () => number; fail?: (op: string, key: string) => boolean } = {}) {
  const objects = new Map<string, KubeObject>();
  const log = new Map<string, string[]>(); // per key, in the order the calls were made
  let uid = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const note = (key: string, what: string) => log.set(key, [...(log.get(key) ?? []), what]);
  const call = <T>(op: string, key: string, body: () => T): T | Promise<T> => {
    if (!options.delay) {
      if (options.fail?.(op, key)) throw new Error(`${op} ${key} refused`);
      return body();
    }
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return (async () => {
      for (let i = options.delay!(); i > 0; i--) await new Promise((r) => setImmediate(r));
      inFlight--;
      if (options.fail?.(op, key)) throw new Error(`${op} ${key} refused`);
      return body();
    })();
  };
  const target: ChurnTarget = {
    create: (o, ns) =>
      call('create', `${ns}/${o.metadata!.name}`, () => {
        const k = `${ns}/${o.metadata!.name}`;
        if (objects.has(k)) throw new Error(`${k} exists`);
        objects.set(k, { ...o, metadata: { ...o.metadata, uid: `u${++uid}` } });
        note(k, 'create');
      }),
    update: (o, ns, name) =>
      call('update', `${ns}/${name}`, () => {
        objects.set(`${ns}/${name}`, o);
        note(`${ns}/${name}`, `update ${o.metadata?.annotations?.['loadgen/serial']}`);
      }),
    delete: (ns, name) =>
      call('delete', `${ns}/${name}`, () => {
        if (!objects.delete(`${ns}/${name}`)) throw new Error('not found');
        note(`${ns}/${name}`, 'delete');
      }),
    get: (ns, name) => call('get', `${ns}/${name}`, () => objects.get(`${ns}/${name}`)),
  };
  return { target, objects, log, maxInFlight: () => maxInFlight };
}

describe('createLoadGenerator on an asynchronous target', () => {
  it('should make the same changes, pod by pod, as on a synchronous target from the same seed', async () => {
    const run = async (target: ReturnType<typeof mapTarget>) => {
      // The churn's ticks in virtual time, the target's calls between them: a few turns of the event loop each.
      const { ts, advance } = virtualClock(5);
      const load = createLoadGenerator({ target: target.target, namespaces: ['a', 'b'], seed: 8, concurrency: 64, scheduler: ts });
      load.seed(40);
      await load.settled();
      const churn = load.churn({ ratePerSecond: 1000, count: 300 });
      await advance(300);
      const c = churn.counters;
      expect(c.created + c.updated + c.deleted + c.recreated + c.skipped).toBe(340);
      await load.settled();
      return { counters: { ...load.counters }, log: Object.fromEntries(target.log), keys: [...target.objects.keys()].sort() };
    };
    const sync = await run(mapTarget());
    const rng = seededRandom(5);
    const async = await run(mapTarget({ delay: () => rng.int(4) }));
    expect(async.counters.skipped).toBe(0);
    expect(async.counters.failed).toBe(0);
    expect(async).toEqual(sync);
    expect(sync.counters.recreated).toBeGreaterThan(0);
  });

  it('should keep at most `concurrency` changes in flight and tell when all are done', async () => {
    const target = mapTarget({ delay: () => 2 });
    const load = createLoadGenerator({ target: target.target, seed: 3, concurrency: 5 });
    load.seed(60);
    expect(target.objects.size).toBe(0); // nothing done synchronously
    await load.settled();
    expect(target.objects.size).toBe(60);
    expect(target.maxInFlight()).toBe(5);
  });

  it("should skip the churn's changes while `maxBacklog` wait, and never with Infinity", async () => {
    const made = async (maxBacklog: number) => {
      const target = mapTarget({ delay: () => 1 });
      const scheduler = new VirtualTimeScheduler();
      const load = createLoadGenerator({ target: target.target, seed: 5, concurrency: 2, maxBacklog, scheduler });
      load.seed(10);
      await load.settled();
      load.churn({ ratePerSecond: 1000, count: 100, mix: { create: 0, update: 1, delete: 0, recreate: 0 } });
      scheduler.flush(); // every tick at once: the target answers none of them meanwhile
      await load.settled();
      return { updated: load.counters.updated, skipped: load.counters.skipped };
    };
    expect(await made(5)).toEqual({ updated: 7, skipped: 93 }); // 2 in flight, 5 waiting
    expect(await made(Infinity)).toEqual({ updated: 100, skipped: 0 });
  });

  it('should count a failed write, read the pod back, and fill its slot again later', async () => {
    let refused = 0;
    const target = mapTarget({ delay: () => 1, fail: (op) => op === 'create' && refused++ === 0 });
    const scheduler = new VirtualTimeScheduler();
    const load = createLoadGenerator({ target: target.target, seed: 4, scheduler });
    load.seed(1);
    await load.settled();
    expect(load.counters.failed).toBe(1);
    expect(target.objects.size).toBe(0);
    // The next change of slot 0 finds it empty (read back after the failure) and creates the pod.
    load.churn({ ratePerSecond: 1000, count: 1 });
    scheduler.flush();
    await load.settled();
    expect(load.counters.created).toBe(2);
    expect([...target.objects.keys()]).toEqual(['default/web-000000']);
  });
});

describe('httpChurnTarget', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 3, auth: { token: 'load' } });
  });
  afterAll(() => sim.close());

  it('should write through the REST API as a cluster does: created by the controller, status by the kubelet', async () => {
    const target = httpChurnTarget({ url: sim.url, token: 'load' });
    try {
      const failures: string[] = [];
      await target.createNamespace('over-http');
      await target.createNamespace('over-http'); // already there: fine
      const load = createLoadGenerator({
        target,
        namespaces: ['over-http'],
        seed: 6,
        unalike: true,
        concurrency: 8,
        onFailure: (e) => failures.push(String(e)),
      });
      load.seed(20);
      await load.settled();
      const stored = sim.storage.list('pods', 'over-http');
      expect(stored).toHaveLength(20);
      const managers = (stored[0].metadata!.managedFields as { manager: string; subresource?: string }[]).map((e) => e.manager);
      expect(managers).toEqual(['kube-controller-manager', 'kubelet']);
      const churn = load.churn({ ratePerSecond: 500, count: 60 });
      const c = churn.counters; // 20 seeded, then the churn's 60 changes (real time: they go over HTTP)
      await until(() => c.created + c.updated + c.deleted + c.recreated + c.skipped === 80, { what: "the churn's 60 changes" });
      await load.settled();
      expect(failures).toEqual([]);
      expect(load.counters.failed).toBe(0);
      const identity = (o: KubeObject) => `${o.metadata!.name}:${o.metadata!.uid}@${o.metadata!.resourceVersion}`;
      const listed = (await target.list()).map(identity).sort();
      expect(listed).toEqual(sim.storage.list('pods').map(identity).sort());
      expect(await target.get('over-http', 'no-such-pod')).toBeUndefined();
    } finally {
      await target.close();
    }
  });
});
