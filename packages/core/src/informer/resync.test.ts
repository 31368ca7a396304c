import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject, map, merge } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { createStore } from '../store/indexer.ts';
import { RESYNC_SLICE_KEYS, resyncClocks, resyncPasses, resyncTicks, syncDeltas, validateResyncPeriod } from './resync.ts';
import { objectOf, type KubeObject } from '../types.ts';
import { testObject, testScheduler } from '@rxinformer/testing';

const storeOf = (...names: string[]) => names.reduce((s, n) => s.set(`default/${n}`, testObject(n, '1')), createStore<KubeObject>());

describe('validateResyncPeriod', () => {
  it('should accept 0, undefined and periods of at least one second', () => {
    expect(validateResyncPeriod(undefined)).toBe(0);
    expect(validateResyncPeriod(0)).toBe(0);
    expect(validateResyncPeriod(1000)).toBe(1000);
  });

  it('should refuse negative, sub-second, non-finite and non-number periods with InvalidOptionsError', () => {
    for (const bad of [-1, 1, 999, Number.NaN, Number.POSITIVE_INFINITY, '1000']) {
      expect(() => validateResyncPeriod(bad, 'resync')).toThrow(InvalidOptionsError);
    }
    expect(() => validateResyncPeriod(500, 'resync')).toThrow('resync must be 0 (off) or at least 1000, got 500');
  });
});

describe('resyncTicks', () => {
  it('should tick each period only while the informer runs, restarting the period on each start', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // running from 0, stopped at 2500 ms, started again at 4000 ms
      const running$ = hot('t 2499ms f 1499ms t', { t: true, f: false });
      const ticks = resyncTicks(1000, running$);
      expectObservable(ticks, '^ 7000ms !').toBe('1000ms a 999ms b 2999ms c 999ms d 999ms e', { a: 0, b: 1, c: 0, d: 1, e: 2 });
    });
  });

  it('should make each handler due on its own period (10 s and 25 s)', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const running$ = hot('t', { t: true });
      const due = merge(resyncTicks(10_000, running$).pipe(map(() => 'a')), resyncTicks(25_000, running$).pipe(map(() => 'b')));
      expectObservable(due, '^ 50001ms !').toBe('10s a 9999ms a 4999ms b 4999ms a 9999ms a 9999ms (ab)');
    });
  });

  it('should ignore a repeated running value and emit nothing when off', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const running$ = hot('t 1499ms t', { t: true }); // a second `true` does not restart the period
      expectObservable(resyncTicks(1000, running$), '^ 2500ms !').toBe('1s a 999ms b', { a: 0, b: 1 });
      expectObservable(resyncTicks(0, running$)).toBe('|');
    });
  });
});

describe('syncDeltas', () => {
  it('should re-deliver every cached object as Sync with old === new, from the snapshot', () => {
    const store = storeOf('a', 'b');
    const deltas = syncDeltas(store);
    expect(deltas.map((d) => d.key).sort()).toEqual(['default/a', 'default/b']);
    for (const d of deltas) {
      expect(d.type).toBe('Sync');
      expect(objectOf(d)).toBe(store.get(d.key));
      expect(d.store).toBe(store);
    }
  });
});

describe('resyncPasses', () => {
  it('should emit a pass per due tick from the store at that tick, never before the first list, never empty', () => {
    testScheduler().run(({ hot, expectObservable, flush }) => {
      const running$ = hot('t', { t: true });
      let current: ReturnType<typeof storeOf> | undefined; // not synced yet
      const passes = resyncPasses({ periodMs: 1000, running$, snapshot: () => current }).pipe(
        map((deltas) =>
          deltas
            .map((d) => `${d.key}@${objectOf(d)?.metadata?.resourceVersion}`)
            .sort()
            .join(','),
        ),
      );
      // 1 s: not synced → nothing; 2 s: empty store → nothing; 3 s: a; 4 s: a and the new b
      hot('1500ms x 999ms y 999ms z').subscribe((v) => {
        if (v === 'x') current = createStore<KubeObject>();
        if (v === 'y') current = storeOf('a');
        if (v === 'z') current = current!.set('default/b', testObject('b', '7'));
      });
      expectObservable(passes, '^ 4500ms !').toBe('3s a 999ms b', { a: 'default/a@1', b: 'default/a@1,default/b@7' });
      flush();
    });
  });

  it('should cut a large pass into slices on later tasks, each read from the cache current then', () => {
    const ts = testScheduler();
    ts.run(({ hot, flush }) => {
      const names = Array.from({ length: 2 * RESYNC_SLICE_KEYS + 500 }, (_, i) => `p${String(i).padStart(5, '0')}`);
      let store = storeOf(...names);
      const [firstKey, lastKey, goneKey] = [store.keys()[0], store.keys().at(-1)!, store.keys()[RESYNC_SLICE_KEYS + 1]];
      const slices: string[][] = [];
      const sub = resyncPasses({ periodMs: 1000, running$: hot('t', { t: true }), snapshot: () => store }).subscribe((deltas) => {
        slices.push(deltas.map((d) => `${d.key}@${objectOf(d)?.metadata?.resourceVersion}`));
        // A watch event that arrives while the first slice is handled: it is applied before the next slice.
        if (slices.length === 1) ts.schedule(() => (store = store.set(lastKey, testObject(lastKey.slice(8), '9')).delete(goneKey)));
      });
      hot('1500ms x').subscribe(() => sub.unsubscribe());
      flush();
      expect(slices.map((s) => s.length)).toEqual([RESYNC_SLICE_KEYS, RESYNC_SLICE_KEYS - 1, 500]);
      expect(slices[0][0]).toBe(`${firstKey}@1`);
      expect(slices[2].at(-1)).toBe(`${lastKey}@9`); // the newer object, not the one of the tick
      expect(new Set(slices.flat().map((k) => k.split('@')[0])).size).toBe(names.length - 1); // each key once
    });
  });
});

describe('resyncClocks', () => {
  it('should give the subscribers of one period one timer and one pass per tick, computed once', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const store = storeOf('a', 'b');
      let reads = 0;
      const clocks = resyncClocks({ running$: hot('t', { t: true }), snapshot: () => (reads++, store) });
      expect(clocks(1000)).toBe(clocks(1000));
      const passes: (readonly unknown[])[] = [];
      const keys = (ds: readonly { key: string }[]) =>
        ds
          .map((d) => d.key)
          .sort()
          .join();
      const first = clocks(1000).pipe(map((ds) => (passes.push(ds), keys(ds))));
      const second = clocks(1000).pipe(map((ds) => (passes.push(ds), keys(ds))));
      const values = { p: 'default/a,default/b' };
      expectObservable(first, '^ 2500ms !').toBe('1s p 999ms p', values);
      expectObservable(second, '^ 2500ms !').toBe('1s p 999ms p', values);
      hot('2600ms x').subscribe(() => {
        expect(reads).toBe(2); // one read of the store per tick, not one per subscriber
        expect(passes).toHaveLength(4);
        expect(passes[1]).toBe(passes[0]); // the very same pass for both
        expect(passes[3]).toBe(passes[2]);
      });
    });
  });

  it('should run each period on its own timer', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const clocks = resyncClocks({ running$: hot('t', { t: true }), snapshot: () => storeOf('a') });
      const due = merge(clocks(1000).pipe(map(() => 'a')), clocks(2500).pipe(map(() => 'b')));
      expectObservable(due, '^ 5500ms !').toBe('1s a 999ms a 499ms b 499ms a 999ms a 999ms (ab)');
    });
  });

  it('should stop while the informer is stopped or nobody listens, and start each period afresh', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const running$ = new BehaviorSubject(true);
      hot('1500ms f 999ms t', { t: true, f: false }).subscribe((on) => running$.next(on)); // stopped 1.5 s to 2.5 s
      const clocks = resyncClocks({ running$, snapshot: () => storeOf('a') });
      const tick = clocks(1000).pipe(map(() => 'x'));
      // One listener from 0 to 4.2 s; the next from 4.7 s: a new timer, its period from then.
      expectObservable(tick, '^ 4200ms !').toBe('1s x 2499ms x', { x: 'x' });
      expectObservable(tick, '4700ms ^ 1300ms !').toBe('5700ms x', { x: 'x' });
    });
  });
});
