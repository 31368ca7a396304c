/**
 * Resync of a 100k-object cache beside a handler that is stuck: counts and order, not time. The
 * stuck handler's buffer stays bounded by the cache (a pass skips keys it still has pending, so
 * nothing is buffered twice), the other handler gets every pass and every live change in order,
 * and the stuck one, released, gets everything once.
 */
import { describe, expect, it } from '@jest/globals';
import { Subject, of } from 'rxjs';
import { createSharedInformer } from './sharedInformer.ts';
import type { KubeObject, ListerWatcher, WatchEvent } from '../types.ts';
import { deferred, testObject, until, virtualClock, PAGED } from '@rxinformer/testing';

const N = 100_000;

describe('resync of a 100k-object cache beside a stuck handler', () => {
  it('should keep the stuck handler bounded and without duplicates, and deliver every pass and change in order to the other', async () => {
    const { ts, advance } = virtualClock(250);
    const watch$ = new Subject<WatchEvent>();
    const items = Array.from({ length: N }, (_, i) => testObject(`p${i}`, '1'));
    const lw: ListerWatcher = { list: () => of({ metadata: { resourceVersion: '1' }, items }), watch: () => watch$ };
    const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts });
    const gate = deferred();
    const stuck = { calls: 0, maxDepth: 0, first: '', byKey: new Map<string, number>() };
    const stuckReg = informer.addEventHandler(
      {
        onAdd: async (o) => {
          stuck.byKey.set(o.metadata!.name!, (stuck.byKey.get(o.metadata!.name!) ?? 0) + 1);
          if (stuck.calls++ > 0) return;
          stuck.first = o.metadata!.name!;
          await gate.promise;
        },
        onUpdate: (_old, o) => void stuck.byKey.set(o.metadata!.name!, (stuck.byKey.get(o.metadata!.name!) ?? 0) + 1),
      },
      { resyncPeriodMs: 1000 },
    );
    let stuckDepth = 0;
    stuckReg.metrics$.subscribe((m) => {
      stuckDepth = m.depth;
      stuck.maxDepth = Math.max(stuck.maxDepth, m.depth);
    });
    const versions = new Map<string, number[]>();
    let syncs = 0;
    const record = (o: KubeObject): void =>
      void versions.set(o.metadata!.name!, [...(versions.get(o.metadata!.name!) ?? []), Number(o.metadata!.resourceVersion)]);
    const fastReg = informer.addEventHandler(
      {
        onAdd: record,
        onUpdate: (old, o) => {
          if (old === o) syncs++;
          record(o);
        },
      },
      { resyncPeriodMs: 1000 },
    );
    let fastDepth = 0;
    fastReg.metrics$.subscribe((m) => (fastDepth = m.depth));
    try {
      informer.start();
      await advance(250);
      await until(() => fastReg.hasSynced());
      const change = (rv: string) => watch$.next({ type: 'MODIFIED', object: testObject('p7', rv) });
      change('2');
      await advance(1000); // the first pass
      await until(() => syncs === N && fastDepth === 0, { timeoutMs: 30_000 });
      change('3'); // between passes
      await advance(2000); // the second pass
      await until(() => syncs === 2 * N && fastDepth === 0, { timeoutMs: 30_000 });
      // The other handler: every pass, every change, each key's versions in order.
      expect(versions.get('p7')).toEqual([1, 2, 2, 3, 3]);
      expect([...versions.values()].every((v) => v.every((rv, i) => i === 0 || rv >= v[i - 1]))).toBe(true);
      // The stuck one: its buffer never held more than the cache and the changes, however many passes.
      expect(stuck.calls).toBe(1);
      expect(stuck.maxDepth).toBeLessThanOrEqual(N + 2);
      gate.resolve();
      await until(() => stuckDepth === 0 && stuck.byKey.size === N, { timeoutMs: 30_000 });
      expect(stuck.byKey.get('p7')).toBe(3); // added, two changes: no resync behind them
      // Besides, only the key in its hands when the passes came (not pending, so the first pass took it) twice.
      expect([...stuck.byKey].filter(([, n]) => n > 1).sort()).toEqual(
        [
          [stuck.first, 2],
          ['p7', 3],
        ].sort(),
      );
    } finally {
      informer.shutdown();
    }
  }, 60_000);
});
