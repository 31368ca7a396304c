/**
 * Read-your-writes of a builder controller in virtual time, over an in-memory server whose watch
 * delivers each write `lagMs` after it was answered: a reconcile that answers `requeueAfterMs`
 * sooner than that reads its own write only when the key is held.
 */
import { describe, expect, it } from '@jest/globals';
import { Subject, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { createInformerFactory, type KubeObject, type ResourceDescriptor, type WatchEvent } from '@rxinformer/core';
import { fakeListerWatcher, page, testObject, virtualClock, pagedInformers } from '@rxinformer/testing';
import { Registry } from 'prom-client';
import { controllerReadYourWritesMetrics } from '@rxinformer/prometheus';
import type { ApiClient, ApiRequest } from '../client/apiClient.ts';
import { controllerFor, type ControllerBuilderOptions } from './controllerBuilder.ts';
import { ReadYourWritesTimeoutError } from './readYourWrites.ts';
import type { ControllerError } from '../reconcile/errors.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A server of pods in `default` whose watch lags `lagMs` behind its merge patches. */
function laggingServer(ts: TestScheduler, lagMs: number) {
  const objects = new Map<string, KubeObject>([['a', testObject('a', '1')]]);
  const events = new Subject<WatchEvent<KubeObject>>();
  let rv = 1;
  const writes: string[] = [];
  const client: ApiClient = {
    request: async <T>(req: ApiRequest): Promise<T> => {
      const name = req.path.split('/').at(-1)!;
      const before = objects.get(name)!;
      const patch = req.body as { metadata: { labels: Record<string, string> } };
      const labels = { ...before.metadata?.labels, ...patch.metadata.labels };
      const after = { ...before, metadata: { ...before.metadata, labels, resourceVersion: String(++rv) } };
      objects.set(name, after);
      writes.push(labels.n);
      ts.schedule(() => events.next({ type: 'MODIFIED', object: after }), lagMs);
      return after as T;
    },
  };
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([...objects.values()], '1')));
  lw.scriptWatch(events);
  const factory = pagedInformers(createInformerFactory(() => lw as never, { scheduler: ts }));
  return { client, factory, writes };
}

/** A controller that counts label `n` of pod `a` up to 2, one patch a reconcile, looking again in 10 ms. */
function counter(
  ts: TestScheduler,
  lagMs: number,
  options: Partial<ControllerBuilderOptions<KubeObject>>,
  keyFunc?: (o: KubeObject) => string,
) {
  const { client, factory, writes } = laggingServer(ts, lagMs);
  if (keyFunc) factory.informerFor(pods, { keyFunc }); // the builder reuses it
  const seen: string[] = [];
  const ctl = controllerFor(factory, pods, { name: 'ryw', scheduler: ts, client, ...options }).reconcile(async ({ object, api }) => {
    const n = Number(object?.metadata?.labels?.n ?? 0);
    seen.push(`${n}@${ts.now()}`);
    if (n >= 2) return;
    await api(pods).mergePatch({ namespace: 'default', name: 'a' }, { metadata: { labels: { n: String(n + 1) } } });
    return { requeueAfterMs: 10 };
  });
  return { ctl, factory, writes, seen };
}

describe('read-your-writes of a builder controller, the watch lagging 50 ms behind writes', () => {
  it('should hold the next reconcile of a key until the cache shows its write', async () => {
    const { ts, advance } = virtualClock(1);
    const { ctl, factory, writes, seen } = counter(ts, 50, {});
    const run = ctl.start();
    await advance(300);
    expect(writes).toEqual(['1', '2']);
    expect(seen.map((s) => s.split('@')[0])).toEqual(['0', '1', '2']);
    const [, second] = seen.map((s) => Number(s.split('@')[1]));
    expect(second).toBeGreaterThanOrEqual(50); // not at the 10 ms requeue
    const stats = ctl.readYourWritesStats();
    expect(stats).toMatchObject({ holds: 2, released: 2, timeouts: 0, heldMs: 80, pending: 0 });
    const registry = new Registry();
    controllerReadYourWritesMetrics(ctl, { registry });
    expect(await registry.metrics()).toMatch(/^controller_read_your_writes_held_seconds_total\{name="ryw"\} 0\.08$/m);
    await run.stop();
    factory.shutdown();
  });

  it("should find the write in the cache by the informer's custom keyFunc, not time out", async () => {
    const { ts, advance } = virtualClock(1);
    const { ctl, factory, seen } = counter(ts, 50, {}, (o) => `pods:${o.metadata?.name}`);
    const run = ctl.start();
    await advance(300);
    expect(seen.map((s) => s.split('@')[0])).toEqual(['0', '1', '2']);
    expect(ctl.readYourWritesStats()).toMatchObject({ holds: 2, released: 2, timeouts: 0 });
    await run.stop();
    factory.shutdown();
  });

  it('should reconcile on the stale cache, writing again, with read-your-writes off', async () => {
    const { ts, advance } = virtualClock(1);
    const { ctl, factory, writes, seen } = counter(ts, 50, { readYourWrites: false });
    const run = ctl.start();
    await advance(300);
    expect(seen.slice(0, 3).map((s) => s.split('@')[0])).toEqual(['0', '0', '0']); // its own write unseen
    expect(writes.length).toBeGreaterThan(2);
    expect(ctl.readYourWritesStats().holds).toBe(0);
    await run.stop();
    factory.shutdown();
  });

  it('should give up holding after timeoutMs, counted and reported, and reconcile on what the cache holds', async () => {
    const { ts, advance } = virtualClock(1);
    const reports: ControllerError[] = [];
    const { ctl, factory, writes, seen } = counter(ts, 50, { readYourWrites: { timeoutMs: 30 }, onError: (e) => reports.push(e) });
    const run = ctl.start();
    const onStream: ControllerError[] = [];
    let completed = false;
    run.errors$.subscribe({ next: (e) => onStream.push(e), complete: () => (completed = true) });
    await advance(45);
    expect(seen.map((s) => s.split('@')[0])).toEqual(['0', '0']); // the first write timed out unseen
    expect(writes).toEqual(['1', '1']);
    // Held at the 10 ms requeue, given up at 30, held again at the 40 ms requeue.
    expect(ctl.readYourWritesStats()).toMatchObject({ holds: 2, released: 0, timeouts: 1 });
    expect(reports).toEqual([
      { stage: 'readYourWrites', key: 'default/a', error: expect.any(ReadYourWritesTimeoutError), retries: 0, dropped: false },
    ]);
    expect(onStream).toEqual(reports);
    expect(String(reports[0].error)).toBe(
      'ReadYourWritesTimeoutError: the caches did not show the writes of the reconcile of "default/a" within 30 ms (pods default/a at resourceVersion 2): reconciled on the cache as it is',
    );
    await run.stop();
    expect(completed).toBe(true);
    factory.shutdown();
  });
});

describe('read-your-writes of a delete', () => {
  /**
   * A server of pods `a` and `b` whose DELETE works as kube-apiserver's for a pod deleted at once
   * (unscheduled, or its containers ended): the watch delivers it marked, then deleted, at once;
   * the answer — the pod marked for deletion, at the DELETED's version — comes `answerMs` later.
   */
  function deletingServer(ts: TestScheduler, answerMs: number) {
    const events = new Subject<WatchEvent<KubeObject>>();
    const client: ApiClient = {
      request: <T>(req: ApiRequest): Promise<T> => {
        if (req.method !== 'DELETE') throw new Error(`unexpected ${req.method}`);
        const marked = (rv: string) => ({
          ...testObject('b', rv),
          metadata: { ...testObject('b', rv).metadata, deletionTimestamp: 'now' },
        });
        events.next({ type: 'MODIFIED', object: marked('3') });
        events.next({ type: 'DELETED', object: marked('4') });
        return new Promise((resolve) => ts.schedule(() => resolve(marked('4') as T), answerMs));
      },
    };
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([testObject('a', '1'), testObject('b', '2')], '2')));
    lw.scriptWatch(events);
    return { client, factory: pagedInformers(createInformerFactory(() => lw as never, { scheduler: ts })) };
  }

  it('should not hold the next reconcile for a pod the watch showed gone before the answer, which has it marked', async () => {
    const { ts, advance } = virtualClock(1);
    const { client, factory } = deletingServer(ts, 5);
    const seen: string[] = [];
    const ctl = controllerFor(factory, pods, { name: 'reaper', scheduler: ts, client, readYourWrites: { timeoutMs: 1000 } }).reconcile(
      async ({ name, api }) => {
        if (name !== 'a') return;
        seen.push(`a@${ts.now()}`);
        if (seen.length === 1) await api(pods).delete({ namespace: 'default', name: 'b' });
        return seen.length === 1 ? { requeueAfterMs: 10 } : undefined;
      },
    );
    const run = ctl.start();
    await advance(100);
    expect(seen).toEqual(['a@0', 'a@15']); // the requeue 10 ms after the answer, not after the timeout
    expect(ctl.readYourWritesStats()).toMatchObject({ holds: 0, timeouts: 0, pending: 0 });
    await run.stop();
    factory.shutdown();
  });
});

describe('read-your-writes of a failing reconcile', () => {
  it('should not hold the retries of a reconcile that wrote and failed, which keep their growing backoff', async () => {
    const { ts, advance } = virtualClock(1);
    const { client, factory, writes } = laggingServer(ts, 1000); // its own writes come back after the test
    const attempts: number[] = [];
    const ctl = controllerFor(factory, pods, { name: 'fails', scheduler: ts, client, maxRetries: 3, queue: { baseDelayMs: 20 } }).reconcile(
      async ({ api }) => {
        attempts.push(ts.now());
        await api(pods).mergePatch({ namespace: 'default', name: 'a' }, { metadata: { labels: { n: String(attempts.length) } } });
        throw new Error('fails after its write');
      },
    );
    const run = ctl.start();
    await advance(300);
    expect(writes).toHaveLength(4);
    expect(attempts.slice(1).map((t, i) => t - attempts[i])).toEqual([20, 40, 80]); // the retries' backoff, doubling
    expect(ctl.readYourWritesStats()).toMatchObject({ holds: 0, pending: 0 });
    await run.stop();
    factory.shutdown();
  });
});

describe('the write options of controllerFor', () => {
  const factory = pagedInformers(createInformerFactory(() => fakeListerWatcher() as never));
  it.each([
    [{ client: {} }, /client must be an ApiClient/],
    [{ readYourWrites: 'yes' }, /readYourWrites must be a boolean/],
    [{ readYourWrites: { timeoutMs: 0 } }, /timeoutMs must be a finite number > 0/],
    [{ readYourWrites: { timeoutMs: Infinity } }, /timeoutMs must be a finite number/],
  ])('should refuse %j', (options, message) => {
    expect(() => controllerFor(factory, pods, { name: 'x', ...(options as object) })).toThrow(message);
  });

  it("should make req.api throw without the client option, failing the key's reconcile", async () => {
    const { ts, advance } = virtualClock(1);
    const { factory: f } = laggingServer(ts, 0);
    const errors: unknown[] = [];
    const ctl = controllerFor(f, pods, { name: 'noclient', scheduler: ts, maxRetries: 0, onError: (e) => errors.push(e.error) }).reconcile(
      async ({ api }) => void api(pods),
    );
    const run = ctl.start();
    await advance(20);
    expect(String(errors[0])).toMatch(/req.api needs the controller's client option/);
    await run.stop();
    f.shutdown();
  });
});
