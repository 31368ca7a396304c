import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { EMPTY, ReplaySubject, Subject, distinctUntilChanged, map, max, of, throwError, timer, type Observable } from 'rxjs';
import { ControllerSyncError, runController, toKeys } from './runController.ts';
import { InvalidOptionsError } from '../errors.ts';
import { objectOf, type Delta, type KubeObject, type Store } from '../types.ts';
import { WorkQueue } from './workqueue.ts';
import type { ControllerError } from './reconcileWorker.ts';
import { createInformerFactory } from '../informer/informerFactory.ts';
import { virtualController } from '../../test/virtualController.ts';
import { fakeListerWatcher, testScheduler } from '@rxinformer/testing';
import { settle } from '@rxinformer/testing';

const LETTER: Record<string, string> = { waitingForSync: 'w', running: 'r', stopping: 's', stopped: 'S' };
/** The controller's phases as marble letters: w(aitingForSync), r(unning), s(topping), S(topped). */
const phases = (ctl: { metrics$: Observable<{ phase: string }> }) =>
  ctl.metrics$.pipe(
    map((m) => LETTER[m.phase]),
    distinctUntilChanged(),
  );
const P = { w: 'w', r: 'r', s: 's', S: 'S' };

describe('runController', () => {
  it('should start reconciling only once synced emits true', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { ctl, log, queue } = virtualController(ts, { synced: cold('---f--t', { f: false, t: true }), work: () => undefined });
      queue.add('a');
      queue.add('b');
      ts.schedule(() => void ctl.stop(), 20);
      expectObservable(log).toBe('------(ab)');
      expectObservable(phases(ctl)).toBe('w-----r 13ms (sS|)', P);
    });
  });

  it('should retry a failing key after 5, 10, 20, 40 ms and drop it after maxRetries, reporting each failure', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const { ctl, log, queue } = virtualController(ts, { maxRetries: 4, work: () => throwError(() => new Error('boom')) });
      queue.add('a');
      expectObservable(log).toBe('a 4ms a 9ms a 19ms a 39ms a');
      const errors = new ReplaySubject<string>();
      ctl.errors$.pipe(map((e) => `${e.retries}${e.dropped ? 'd' : ''}`)).subscribe(errors);
      expectObservable(errors).toBe('0 4ms 1 9ms 2 19ms 3 39ms D 24ms |', { 0: '0', 1: '1', 2: '2', 3: '3', D: '4d' });
      ts.schedule(() => {
        expect(queue.numRequeues('a')).toBe(0); // forgotten once dropped
        void ctl.stop();
      }, 100);
    });
  });

  it('should forget a key that succeeds, so its next failure starts again from 5 ms', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      let n = 0;
      const work = () => (++n === 3 ? timer(0) : throwError(() => new Error('flaky')));
      const { ctl, log, queue } = virtualController(ts, { work });
      queue.add('a');
      ts.schedule(() => queue.add('a'), 50);
      ts.schedule(() => void ctl.stop(), 60);
      // fail at 0, fail at 5, succeed at 15; added at 50: fail, retried 5 ms later (not 20)
      expectObservable(log).toBe('a 4ms a 9ms a 34ms a 4ms a');
    });
  });

  it('should reconcile a key added while it is processed once more afterwards, not in parallel', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { ctl, log, queue } = virtualController(ts, { concurrency: 2 });
      hot('a-a-a-b').subscribe((k) => queue.add(k));
      ts.schedule(() => void ctl.stop(), 30);
      expectObservable(log).toBe('a 5ms b 3ms a');
    });
  });

  it('should run at most `concurrency` reconciles at once', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const { ctl, log, queue } = virtualController(ts, { concurrency: 2 });
      for (const k of 'abcde') queue.add(k);
      ts.schedule(() => void ctl.stop(), 40);
      expectObservable(log).toBe('(ab) 6ms (cd) 6ms e');
      expectObservable(
        ctl.metrics$.pipe(
          map((m) => m.active),
          max(),
        ),
      ).toBe('40ms (2|)', { 2: 2 });
    });
  });

  it('should requeue a key after requeueAfterMs', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      let n = 0;
      const { ctl, log, queue } = virtualController(ts, { work: () => of(++n === 1 ? { requeueAfterMs: 30 } : undefined) });
      queue.add('a');
      ts.schedule(() => void ctl.stop(), 100);
      expectObservable(log).toBe('a 29ms a');
    });
  });

  describe('stop', () => {
    it('should let reconciles in progress finish and drop waiting keys', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const { ctl, log, queue } = virtualController(ts, {});
        queue.add('a');
        queue.add('b');
        ts.schedule(() => void ctl.stop(), 5);
        expectObservable(log).toBe('a');
        expectObservable(phases(ctl)).toBe('r 4ms s 4ms (S|)', P);
        ts.schedule(() => expect(ctl.queue.metrics()).toMatchObject({ depth: 0, processing: 0 }), 11);
      });
    });

    it('should reconcile the waiting keys first with drainQueue', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const { ctl, log, queue } = virtualController(ts, {});
        queue.add('a');
        queue.add('b');
        ts.schedule(() => {
          void ctl.stop({ drainQueue: true });
          queue.add('c');
        }, 5);
        expectObservable(log).toBe('a 9ms b');
        expectObservable(phases(ctl)).toBe('r 4ms s 14ms (S|)', P);
      });
    });

    it('should not retry a key that fails while stopping, and report it dropped', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const { ctl, queue } = virtualController(ts, {
          work: () =>
            timer(10).pipe(
              map(() => {
                throw new Error('late');
              }),
            ),
        });
        queue.add('a');
        ts.schedule(() => void ctl.stop(), 5);
        expectObservable(ctl.errors$.pipe(map((e) => `${e.key}${e.dropped}`))).toBe('10ms (a|)', { a: 'atrue' });
      });
    });

    it('should stop before sync without ever reconciling, and resolve every call', async () => {
      const synced = new Subject<boolean>();
      const reconciled: string[] = [];
      const ctl = runController({
        synced,
        reconcile: (k) => {
          reconciled.push(k);
        },
      });
      ctl.queue.add('a');
      const [first, second] = [ctl.stop(), ctl.stop()];
      expect(first).toBe(second);
      await first;
      synced.next(true);
      await settle();
      expect(reconciled).toEqual([]);
      expect(synced.observed).toBe(false);
    });
  });

  describe('sync failures', () => {
    it('should report a failed or ended synced stream and stop', () => {
      const ts = testScheduler();
      ts.run(({ cold, expectObservable }) => {
        const failed = virtualController(ts, { synced: cold('--#', undefined, new Error('informer gone')) }).ctl;
        const ended = virtualController(ts, { synced: cold('--f|', { f: false }) }).ctl;
        const reason = (ctl: typeof failed) =>
          ctl.errors$.pipe(map((e) => (e.error instanceof ControllerSyncError && e.key === undefined ? e.error.message : 'wrong')));
        expectObservable(reason(failed)).toBe('--(e|)', { e: 'waiting for the caches to sync failed: informer gone' });
        expectObservable(reason(ended)).toBe('---(e|)', { e: 'synced completed before the caches synced' });
        expectObservable(phases(failed)).toBe('w-(sS|)', P);
      });
    });

    it('should report and stop when the synced stream fails or ends at once (an informer already shut down)', () => {
      for (const synced of [EMPTY, throwError(() => new Error('gone'))]) {
        const errors: unknown[] = [];
        const ctl = runController({ synced, reconcile: () => {}, onError: (e) => errors.push(e.error) });
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(ControllerSyncError);
        let completed = false;
        ctl.metrics$.subscribe({
          complete: () => {
            completed = true;
          },
        }); // stopped: its streams are complete
        expect(completed).toBe(true);
      }
    });

    it('should report a rejected synced promise with its cause', async () => {
      const errors: unknown[] = [];
      const cause = new Error('no cache');
      const ctl = runController({ synced: Promise.reject(cause), reconcile: () => {}, onError: (e) => errors.push(e.error) });
      await settle();
      expect(errors).toHaveLength(1);
      expect((errors[0] as ControllerSyncError).cause).toBe(cause);
      await ctl.stop();
    });

    it("should say what to do when synced is a factory's waitForCacheSync() asked before start(), at the sync stage", async () => {
      const factory = createInformerFactory(() => fakeListerWatcher() as never);
      factory.informerFor({ group: '', version: 'v1', resource: 'pods', namespaced: true });
      const reports: ControllerError[] = [];
      const ctl = runController({ synced: factory.waitForCacheSync(), reconcile: () => {}, onError: (e) => reports.push(e) });
      await settle();
      expect(reports).toEqual([{ stage: 'sync', error: expect.any(ControllerSyncError), retries: 0, dropped: true }]);
      expect(String(reports[0].error)).toBe(
        'ControllerSyncError: waiting for the caches to sync failed: the informer factory is not running: call start() (or retain()) before waitForCacheSync()',
      );
      await ctl.stop();
      factory.shutdown();
    });
  });

  describe('in real time', () => {
    it('should reconcile async keys with concurrency, never one key twice at once, retrying failures', async () => {
      const queue = new WorkQueue<string>({ baseDelayMs: 1, maxDelayMs: 4 });
      const active = new Set<string>();
      let maxActive = 0;
      let overlap = false;
      const attempts = new Map<string, number>();
      const failures: string[] = [];
      const ctl = runController({
        queue,
        synced: Promise.resolve(),
        concurrency: 3,
        onError: (e) => failures.push(e.key!),
        reconcile: async (key) => {
          if (active.has(key)) overlap = true;
          active.add(key);
          maxActive = Math.max(maxActive, active.size);
          attempts.set(key, (attempts.get(key) ?? 0) + 1);
          await Promise.resolve();
          await Promise.resolve();
          active.delete(key);
          if (key.endsWith('0') && attempts.get(key) === 1) throw new Error('first try of a key ending in 0 fails');
        },
      });
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 40; i++) queue.add(`k${i % 20}`);
        await settle();
      }
      for (let i = 0; i < 200 && (queue.length > 0 || queue.metrics().processing > 0 || queue.metrics().delayed > 0); i++) await settle();
      await ctl.stop();
      expect(overlap).toBe(false);
      expect(maxActive).toBeLessThanOrEqual(3);
      expect(maxActive).toBeGreaterThan(1);
      expect([...attempts.keys()].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`).sort());
      expect(failures.sort()).toEqual(['k0', 'k10']);
      expect(queue.numRequeues('k0')).toBe(0);
    });

    it('should work through many synchronous reconciles without growing the stack, yielding to timers', async () => {
      const queue = new WorkQueue<number>();
      for (let i = 0; i < 20_000; i++) queue.add(i);
      let n = 0;
      const ctl = runController({
        queue,
        synced: Promise.resolve(true),
        reconcile: () => {
          n++;
        },
      });
      let atTimer = -1;
      setTimeout(() => {
        atTimer = n;
      }, 0);
      for (let i = 0; i < 100 && n < 20_000; i++) await settle();
      expect(n).toBe(20_000);
      expect(atTimer).toBeGreaterThan(0); // the worker yielded: a timer ran in between
      expect(atTimer).toBeLessThan(20_000);
      await ctl.stop();
    });
  });

  it('should refuse invalid options with InvalidOptionsError at the call', () => {
    const ok = { synced: Promise.resolve(), reconcile: () => {} };
    for (const bad of [
      { ...ok, concurrency: 0 },
      { ...ok, concurrency: 1.5 },
      { ...ok, maxRetries: -1 },
      { ...ok, reconcile: undefined },
      { ...ok, synced: undefined },
      { ...ok, synced: true },
      { ...ok, queue: {} },
    ]) {
      expect(() => runController(bad as never)).toThrow(InvalidOptionsError);
    }
  });

  it('should never run one key twice at once, and reconcile every key after its last add, whatever the timing', () => {
    const script = fc.record({
      concurrency: fc.integer({ min: 1, max: 4 }),
      adds: fc.array(fc.record({ at: fc.nat({ max: 60 }), key: fc.constantFrom('a', 'b', 'c', 'd') }), { minLength: 1, maxLength: 30 }),
      durations: fc.array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 20 }),
      failEvery: fc.integer({ min: 2, max: 7 }),
    });
    fc.assert(
      fc.property(script, ({ concurrency, adds, durations, failEvery }) => {
        const ts = testScheduler();
        ts.run(() => {
          const queue = new WorkQueue<string>({ scheduler: ts, maxDelayMs: 20 });
          const running = new Set<string>();
          const starts = new Map<string, number>();
          let n = 0;
          let maxRunning = 0;
          runController({
            queue,
            concurrency,
            scheduler: ts,
            synced: timer(3).pipe(map(() => true)),
            reconcile: (key) => {
              expect(running.has(key)).toBe(false);
              running.add(key);
              maxRunning = Math.max(maxRunning, running.size);
              starts.set(key, ts.now());
              const i = n++;
              const fails = i % failEvery === 0 && i < 20; // failures stop, so every key settles
              return timer(durations[i % durations.length]).pipe(
                map(() => {
                  running.delete(key);
                  if (fails) throw new Error('planned');
                }),
              );
            },
          });
          for (const { at, key } of adds) ts.schedule(() => queue.add(key), at);
          ts.flush();
          expect(maxRunning).toBeLessThanOrEqual(concurrency);
          for (const { at, key } of adds) expect(starts.get(key)).toBeGreaterThanOrEqual(Math.max(at, 3));
          expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0, delayed: 0 });
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('toKeys', () => {
  const store = {} as Store;
  const delta = (type: Delta['type'], key: string, object: KubeObject = { metadata: { name: key } }): Delta =>
    type === 'Deleted'
      ? { type, key, deleted: { key, lastKnown: object, finalStateUnknown: true }, store }
      : type === 'Added'
        ? { type, key, object, isInInitialList: false, store }
        : type === 'Sync'
          ? { type, key, object, store }
          : { type, key, object, oldObject: object, store };

  it('should map every delta to its key, tombstones included', () =>
    testScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', 'ns/a'),
        u: delta('Updated', 'ns/a'),
        t: delta('Deleted', 'ns/b'),
        s: delta('Sync', 'ns/c'),
      };
      expectObservable(cold('a-u-t-s|', values).pipe(toKeys())).toBe('a-a-b-c|', { a: 'ns/a', b: 'ns/b', c: 'ns/c' });
    }));

  it('should map deltas to other keys, several or none', () =>
    testScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', 'ns/a', { metadata: { name: 'a', ownerReferences: [{ name: 'x' }, { name: 'y' }] } }),
        b: delta('Added', 'ns/b'),
      };
      const owners = (d: Delta) => (objectOf(d)?.metadata?.ownerReferences as { name: string }[] | undefined)?.map((o) => o.name);
      expectObservable(cold('a---b|', values).pipe(toKeys(owners))).toBe('(xy)-|', { x: 'x', y: 'y' });
    }));
});
