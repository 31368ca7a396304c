import { describe, expect, it } from '@jest/globals';
import type { ListPage, ReflectorStatus, WatchEvent } from '../types.ts';
import { createSharedInformer } from './sharedInformer.ts';
import { fakeListerWatcher, flushTo, page, PAGED, testObject as obj, testScheduler } from '@rxinformer/testing';

describe('SharedInformer.getStatus', () => {
  it("should be status$'s latest value, the same object until the status changes", () => {
    const ts = testScheduler();
    const lw = fakeListerWatcher();
    lw.scriptList(ts.createColdObservable<ListPage>('-(p|)', { p: page([obj('a', '1')], '5') }));
    lw.scriptWatch(ts.createColdObservable<WatchEvent>('--m', { m: { type: 'MODIFIED', object: obj('a', '6') } }));
    const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts });
    const seen: ReflectorStatus[] = [];
    const agreed: boolean[] = [];
    informer.status$.subscribe((s) => {
      seen.push(s);
      agreed.push(informer.getStatus() === s);
    });
    const stopped = informer.getStatus();
    expect(stopped).toMatchObject({ phase: 'stopped', hasSynced: false });
    expect(informer.getStatus()).toBe(stopped);
    informer.start();
    flushTo(ts, 100);
    expect(informer.getStore().get('default/a')?.metadata?.resourceVersion).toBe('6');
    const watching = informer.getStatus();
    expect(watching).toMatchObject({ phase: 'watching', hasSynced: true });
    expect(watching).toBe(seen.at(-1));
    expect(informer.getStatus()).toBe(watching); // a watch event changed the store, not the status
    informer.stop();
    expect(informer.getStatus()).toMatchObject({ phase: 'stopped', hasSynced: true });
    expect(informer.getStatus()).toBe(seen.at(-1));
    const phases = seen.map((s) => s.phase).filter((p, i, all) => p !== all[i - 1]); // listing reports its progress too
    expect(phases).toEqual(['stopped', 'listing', 'connecting', 'watching', 'stopped']); // the watch opens with its first event
    expect(new Set(seen).size).toBe(seen.length); // each emission a new object
    expect(agreed.every(Boolean)).toBe(true);
    informer.shutdown();
    expect(informer.getStatus()).toBe(seen.at(-1)); // still readable after shutdown
  });
});
