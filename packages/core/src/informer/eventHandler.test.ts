import { describe, expect, it } from '@jest/globals';
import { Subject, asyncScheduler, map, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { deliverTo } from './eventHandler.ts';
import type { Delivery, EventHandler, HandlerMetrics } from './handlerTypes.ts';
import { HandlerQueue, MAX_CALLS_IN_A_ROW } from './handlerQueue.ts';
import { createStore } from '../store/indexer.ts';
import { objectOf, type Delta, type DeltaType, type KubeObject } from '../types.ts';
import { deferred, settle, testObject, testScheduler } from '@rxinformer/testing';

const store = createStore<KubeObject>();
/** A delta of `name` at resource version `rv`; updates carry the previous version `old`. */
function delta(type: DeltaType, name: string, rv: string, old?: string): Delta<KubeObject> {
  const object = testObject(name, rv);
  const key = `default/${name}`;
  if (type === 'Deleted') return { type, key, deleted: { key, lastKnown: object, finalStateUnknown: false }, store };
  if (type === 'Added') return { type, key, object, isInInitialList: false, store };
  if (type === 'Sync') return { type, key, object, store };
  return { type, key, object, oldObject: old ? testObject(name, old) : object, store };
}
/** A handler that records each call as `add x@1`, `update x 1->2`, `sync x@2`, `delete x@3`. */
function recorder(calls: string[] = []): EventHandler<KubeObject> & { calls: string[] } {
  const v = (o: KubeObject) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  return {
    calls,
    onAdd: (o, initial) => {
      calls.push(`add ${v(o)}${initial ? ' initial' : ''}`);
    },
    onUpdate: (a, b) => {
      calls.push(a === b ? `sync ${v(b)}` : `update ${v(b)} from ${a.metadata?.resourceVersion}`);
    },
    onDelete: ({ lastKnown, finalStateUnknown }) => {
      calls.push(`delete ${v(lastKnown!)}${finalStateUnknown ? ' tombstone' : ''}`);
    },
  };
}
const describeDelivery = (d: Delivery<KubeObject>) =>
  `${d.delta.type} ${objectOf(d.delta)?.metadata?.name}${d.failed ? ` failed: ${(d.error as Error).message}` : ''}`;

describe('deliverTo', () => {
  it('should deliver every delta in order (fifo) and complete once the buffer is drained', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const h = recorder();
      const source = cold('a-b-(cd)|', {
        a: delta('Added', 'x', '1'),
        b: delta('Updated', 'x', '2', '1'),
        c: delta('Sync', 'x', '2'),
        d: delta('Deleted', 'x', '3'),
      });
      expectObservable(source.pipe(deliverTo(h), map(describeDelivery))).toBe('a-b-(cd)|', {
        a: 'Added x',
        b: 'Updated x',
        c: 'Sync x',
        d: 'Deleted x',
      });
      flush();
      expect(h.calls).toEqual(['add x@1', 'update x@2 from 1', 'sync x@2', 'delete x@3']);
    });
  });

  it('should map deltas to callbacks: Replaced and Sync as updates with old === new, tombstones flagged', () => {
    testScheduler().run(({ cold, flush }) => {
      const h = recorder();
      const tomb: Delta<KubeObject> = {
        type: 'Deleted',
        key: 'default/y',
        deleted: { key: 'default/y', lastKnown: testObject('y', '4'), finalStateUnknown: true },
        store,
      };
      const initial = { ...delta('Added', 'y', '1'), isInInitialList: true };
      cold('(abc|)', { a: initial, b: delta('Replaced', 'y', '1'), c: tomb })
        .pipe(deliverTo(h))
        .subscribe();
      flush();
      expect(h.calls).toEqual(['add y@1 initial', 'sync y@1', 'delete y@4 tombstone']);
    });
  });

  it('should keep only the newest pending notification per key when coalescing, with the oldest old object', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const h = recorder();
      // One synchronous burst: everything is pending before the first delivery.
      const burst = cold('(abcdefg|)', {
        a: delta('Updated', 'x', '2', '1'),
        b: delta('Added', 'y', '5'),
        c: delta('Updated', 'x', '3', '2'),
        d: delta('Updated', 'y', '6', '5'), // folds into y's pending add
        e: delta('Sync', 'x', '3'), // a resync does not turn a pending update into a sync
        f: delta('Deleted', 'z', '9'),
        g: delta('Added', 'z', '10'), // delete then add stays two
      });
      expectObservable(burst.pipe(deliverTo(h, { buffer: 'coalesce' }), map(describeDelivery))).toBe('(xyzw|)', {
        x: 'Updated x',
        y: 'Added y',
        z: 'Deleted z',
        w: 'Added z',
      });
      flush();
      expect(h.calls).toEqual(['update x@3 from 1', 'add y@6', 'delete z@9', 'add z@10']);
    });
  });

  it('should never drop a delete when coalescing: a pending add or update folds into it', () => {
    testScheduler().run(({ cold, flush }) => {
      const h = recorder();
      cold('(abcd|)', {
        a: delta('Added', 'x', '1'),
        b: delta('Updated', 'x', '2', '1'),
        c: delta('Deleted', 'x', '3'),
        d: delta('Updated', 'x', '4', '3'),
      })
        .pipe(deliverTo(h, { buffer: 'coalesce' }))
        .subscribe();
      flush();
      expect(h.calls).toEqual(['delete x@3', 'update x@4 from 3']);
    });
  });

  it('should deliver everything when not coalescing, even in one burst', () => {
    testScheduler().run(({ cold, flush }) => {
      const h = recorder();
      cold('(abc|)', { a: delta('Added', 'x', '1'), b: delta('Updated', 'x', '2', '1'), c: delta('Updated', 'x', '3', '2') })
        .pipe(deliverTo(h))
        .subscribe();
      flush();
      expect(h.calls).toEqual(['add x@1', 'update x@2 from 1', 'update x@3 from 2']);
    });
  });

  it('should report a throwing callback as a failed delivery and go on with the next delta', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const handler: EventHandler<KubeObject> = {
        onAdd: (o) => {
          if (o.metadata?.name === 'b') throw new Error('boom');
        },
      };
      const source = cold('a-b-c|', { a: delta('Added', 'a', '1'), b: delta('Added', 'b', '2'), c: delta('Added', 'c', '3') });
      expectObservable(source.pipe(deliverTo(handler), map(describeDelivery))).toBe('a-b-c|', {
        a: 'Added a',
        b: 'Added b failed: boom',
        c: 'Added c',
      });
    });
  });

  it('should pass a source error on at once and stop delivering', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const h = recorder();
      expectObservable(cold('a-#', { a: delta('Added', 'a', '1') }).pipe(deliverTo(h), map(describeDelivery))).toBe('a-#', {
        a: 'Added a',
      });
      flush();
      expect(h.calls).toEqual(['add a@1']);
    });
  });

  it('should await async callbacks: one delta at a time, in order, and a rejection does not stop it', async () => {
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const handler: EventHandler<KubeObject> = {
      onAdd: async (o) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await settle();
        order.push(o.metadata!.name!);
        active--;
        if (o.metadata?.name === 'b') throw new Error('rejected');
      },
    };
    const source = new Subject<Delta<KubeObject>>();
    const deliveries: string[] = [];
    const done = new Promise<void>((resolve) =>
      source.pipe(deliverTo(handler)).subscribe({ next: (d) => deliveries.push(describeDelivery(d)), complete: resolve }),
    );
    for (const n of ['a', 'b', 'c']) source.next(delta('Added', n, '1'));
    source.complete(); // completes only after the buffer is drained
    await done;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(maxActive).toBe(1);
    expect(deliveries).toEqual(['Added a', 'Added b failed: rejected', 'Added c']);
  });

  it('should measure how long each delta waited in the buffer on the given clock', async () => {
    let now = 0;
    const clock = { now: () => now } as SchedulerLike;
    const gate = deferred();
    const source = new Subject<Delta<KubeObject>>();
    const lags: number[] = [];
    const sub = source
      .pipe(deliverTo({ onAdd: (o) => (o.metadata?.name === 'a' ? gate.promise : undefined) }, { scheduler: clock }))
      .subscribe((d) => lags.push(d.lagMs));
    source.next(delta('Added', 'a', '1')); // enqueued at 0
    source.next(delta('Added', 'b', '1')); // enqueued at 0, waits behind a
    await settle();
    now = 250;
    gate.resolve();
    await settle();
    expect(lags).toEqual([0, 250]);
    sub.unsubscribe();
  });

  it('should drop the buffer on unsubscribe', async () => {
    const gate = deferred();
    const h = recorder();
    const slow = {
      ...h,
      onAdd: async (o: KubeObject, i: boolean, key: string) => {
        void h.onAdd!(o, i, key);
        await gate.promise;
      },
    };
    const source = new Subject<Delta<KubeObject>>();
    const sub = source.pipe(deliverTo(slow)).subscribe();
    source.next(delta('Added', 'a', '1'));
    source.next(delta('Added', 'b', '1'));
    await settle();
    sub.unsubscribe();
    gate.resolve();
    await settle();
    expect(h.calls).toEqual(['add a@1']);
  });

  it('should refuse a handler without callbacks, a callback that is not a function and an unknown buffer policy', () => {
    expect(() => deliverTo({})).toThrow(InvalidOptionsError);
    expect(() => deliverTo({ onUpdate: 1 as never })).toThrow('onUpdate must be a function');
    expect(() => deliverTo({ onAdd: () => {} }, { buffer: 'lifo' as never })).toThrow(InvalidOptionsError);
    expect(() => deliverTo(null as never)).toThrow(InvalidOptionsError);
  });
});

describe('HandlerQueue', () => {
  it('should publish metrics only to listeners: the current figures on subscription, then every change', async () => {
    let clock = 0;
    const gate = deferred();
    const handler: EventHandler<KubeObject> = {
      onAdd: (o) => (o.metadata?.name === 'a' ? gate.promise : undefined),
      onUpdate: () => {
        throw new Error('boom');
      },
    };
    const q = new HandlerQueue<KubeObject>('h', handler, {}, { now: () => clock } as SchedulerLike);
    q.enqueue(delta('Added', 'a', '1'));
    q.enqueue(delta('Added', 'b', '1'));
    q.enqueue(delta('Updated', 'b', '2', '1'));
    await settle(); // 'a' is running, two wait
    clock = 7;
    const seen: HandlerMetrics[] = [];
    const fig = (depth: number, lagMs: number, delivered: number, errors: number): HandlerMetrics => ({ depth, lagMs, delivered, errors });
    let sub = q.metrics$.subscribe((m) => seen.push(m));
    expect(seen).toEqual([fig(2, 0, 0, 0)]);
    q.enqueue(delta('Added', 'c', '1'));
    clock = 10;
    gate.resolve();
    await settle();
    expect(seen).toEqual([
      fig(2, 0, 0, 0),
      fig(3, 0, 0, 0),
      fig(3, 0, 1, 0), // a done
      fig(2, 0, 1, 0),
      fig(2, 10, 2, 0), // b taken, done
      fig(1, 10, 2, 0),
      fig(1, 10, 3, 1), // the update taken, failed
      fig(0, 10, 3, 1),
      fig(0, 3, 4, 1), // c taken, done after 3 ms
    ]);
    sub.unsubscribe();
    q.enqueue(delta('Added', 'd', '1'));
    await settle();
    expect(seen).toHaveLength(9); // nobody listened: nothing computed
    seen.length = 0;
    sub = q.metrics$.subscribe((m) => seen.push(m));
    expect(seen).toEqual([fig(0, 0, 5, 1)]);
    let completed = false;
    q.remove();
    q.metrics$.subscribe({
      next: (m) => seen.push(m),
      complete: () => {
        completed = true;
      },
    });
    expect(completed).toBe(true);
    expect(seen).toEqual([fig(0, 0, 5, 1)]);
    expect(sub.closed).toBe(true);
  });

  it('should let the event loop run between long runs of callbacks that return at once, in order', async () => {
    const delivered: string[] = [];
    const q = new HandlerQueue<KubeObject>('h', { onUpdate: (_o, n) => void delivered.push(n.metadata!.name!) }, {}, asyncScheduler);
    const total = 2 * MAX_CALLS_IN_A_ROW + 10;
    for (let i = 0; i < total; i++) q.enqueue(delta('Updated', `p${i}`, '2', '1'));
    // A task queued now (a watch event's I/O, a timer) runs after the first run of callbacks, not after all.
    const seenByATask = await new Promise<number>((resolve) => asyncScheduler.schedule(() => resolve(delivered.length)));
    expect(seenByATask).toBe(MAX_CALLS_IN_A_ROW);
    await new Promise<void>((resolve) => waitIdle(q, resolve));
    expect(delivered).toEqual(Array.from({ length: total }, (_, i) => `p${i}`));
  });
});

/** Resolves once `q` has delivered everything. */
function waitIdle(q: HandlerQueue<KubeObject>, done: () => void): void {
  const check = () => (q.idle ? done() : asyncScheduler.schedule(check, 1));
  check();
}
