/**
 * The shared informer in virtual time: a scripted list and watch as cold marbles, handlers that
 * record what they hear (and what the store held then) into streams checked with marbles.
 * Handler delivery runs on `asapScheduler`, which `TestScheduler.run` drives, so delivery order
 * and resync due-ness are exact here. Every test stops the informer before the end of the run:
 * a timer left behind would keep `flush()` from ending.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { Subject } from 'rxjs';
import { StoreSnapshot } from '../store/indexer.ts';
import { createSharedInformer } from './sharedInformer.ts';
import type { DeletedObject, KubeObject, ListPage, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler, PAGED } from '@rxinformer/testing';

const v = (o: KubeObject) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;

/** A handler that reports each call, with the store's version of that object at the time, on `heard`. */
function reporter(informer: { getStore(): { get(key: string): KubeObject | undefined } }, heard: Subject<string>, name = '') {
  const inStore = (o: KubeObject) => informer.getStore().get(`default/${o.metadata?.name}`)?.metadata?.resourceVersion ?? '-';
  return {
    onAdd: (o: KubeObject, initial: boolean) => heard.next(`${name}add ${v(o)}${initial ? ' initial' : ''} store ${inStore(o)}`),
    onUpdate: (a: KubeObject, b: KubeObject) => heard.next(`${name}${a === b ? 'sync' : 'update'} ${v(b)} store ${inStore(b)}`),
    onDelete: ({ lastKnown: o }: DeletedObject<KubeObject>) => heard.next(`${name}delete ${v(o!)} store ${inStore(o!)}`),
  };
}

describe('createSharedInformer in virtual time', () => {
  it('should deliver the initial list, then live events in order, each after the store has it', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(cold<ListPage>('5ms (p|)', { p: page([obj('a', '1'), obj('b', '2')], '10') }));
      lw.scriptWatch(
        cold<WatchEvent>('10ms m 9ms (dn)', {
          m: { type: 'MODIFIED', object: obj('a', '11') },
          d: { type: 'DELETED', object: obj('b', '12') },
          n: { type: 'ADDED', object: obj('c', '13') },
        }),
      );
      const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts });
      const heard = new Subject<string>();
      informer.addEventHandler(reporter(informer, heard));
      informer.start();
      ts.schedule(() => informer.stop(), 100);
      // list answered at 5 ms; the watch starts then, so its events come at 15 and 25 ms.
      expectObservable(heard).toBe('5ms (ab) 6ms m 9ms (dn)', {
        a: 'add a@1 initial store 1',
        b: 'add b@2 initial store 2',
        m: 'update a@11 store 11',
        d: 'delete b@12 store -',
        n: 'add c@13 store 13',
      });
    });
  });

  it('should replay the store to a late handler, then live events of the same instant, with no gap and no duplicate', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(cold<ListPage>('(p|)', { p: page([obj('a', '1')], '10') }));
      // Live events at 20 ms, the very instant the late handler is added, arriving while its replay
      // is still buffered; then one more at 33 ms.
      lw.scriptWatch(
        cold<WatchEvent>('20ms (mn) 9ms u', {
          m: { type: 'MODIFIED', object: obj('a', '11') },
          n: { type: 'ADDED', object: obj('b', '12') },
          u: { type: 'MODIFIED', object: obj('b', '13') },
        }),
      );
      const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts });
      informer.start();
      const late = new Subject<string>();
      ts.schedule(() => {
        informer.addEventHandler(reporter(informer, late));
      }, 20);
      ts.schedule(() => informer.stop(), 100);
      expectObservable(late).toBe('20ms (amn) 8ms u', {
        a: 'add a@1 initial store 11', // the store already holds 11: handlers may see a newer cache than their event
        m: 'update a@11 store 11',
        n: 'add b@12 store 12',
        u: 'update b@13 store 13',
      });
    });
  });

  it('should resync only the handlers whose period is due, from the cache, and never call the server', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(cold<ListPage>('(p|)', { p: page([obj('a', '1')], '10') }));
      lw.scriptWatch(cold<WatchEvent>('2500ms m', { m: { type: 'MODIFIED', object: obj('a', '11') } }));
      const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts, resyncPeriodMs: 2000 });
      const heard = new Subject<string>();
      informer.addEventHandler(reporter(informer, heard, 'fast '), { resyncPeriodMs: 1000 });
      informer.addEventHandler(reporter(informer, heard, 'slow ')); // the informer's default: 2 s
      informer.addEventHandler(reporter(informer, heard, 'off '), { resyncPeriodMs: 0 });
      informer.start();
      ts.schedule(() => informer.stop(), 4500);
      expectObservable(heard).toBe('(abc) 995ms f 999ms (hg) 496ms (ijk) 495ms l 999ms (nm)', {
        a: 'fast add a@1 initial store 1',
        b: 'slow add a@1 initial store 1',
        c: 'off add a@1 initial store 1',
        f: 'fast sync a@1 store 1',
        g: 'fast sync a@1 store 1',
        h: 'slow sync a@1 store 1',
        i: 'fast update a@11 store 11',
        j: 'slow update a@11 store 11',
        k: 'off update a@11 store 11',
        l: 'fast sync a@11 store 11',
        m: 'fast sync a@11 store 11',
        n: 'slow sync a@11 store 11',
      });
      ts.schedule(() => expect({ lists: lw.listCalls.length, watches: lw.watchCalls.length }).toEqual({ lists: 1, watches: 1 }), 4400);
    });
  });

  it('should restart resync periods when started again, with no resync while stopped', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const lw = fakeListerWatcher();
      const list = cold<ListPage>('(p|)', { p: page([obj('a', '1')], '10') });
      lw.scriptList(list, list);
      const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts });
      const heard = new Subject<string>();
      informer.addEventHandler(reporter(informer, heard), { resyncPeriodMs: 1000 });
      informer.start();
      ts.schedule(() => informer.stop(), 1500);
      ts.schedule(() => informer.start(), 3200); // relists (unchanged: Replaced → update with old === new)
      ts.schedule(() => informer.stop(), 4300);
      expectObservable(heard).toBe('a 999ms s 2199ms r 999ms s', {
        a: 'add a@1 initial store 1',
        s: 'sync a@1 store 1',
        r: 'sync a@1 store 1',
      });
    });
  });

  it('should put store changes only on events$, never a Sync, whatever the resync periods', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(cold<ListPage>('(p|)', { p: page([obj('a', '1')], '10') }));
      lw.scriptWatch(cold<WatchEvent>('1500ms m', { m: { type: 'MODIFIED', object: obj('a', '11') } }));
      const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts, resyncPeriodMs: 1000 });
      informer.addEventHandler({ onAdd: () => {} }); // resyncs every second: to it, not to events$
      const events = new Subject<string>();
      informer.events$.subscribe((d) => events.next(`${d.type} ${d.key}${d.type === 'Added' && d.isInInitialList ? ' initial' : ''}`));
      expectObservable(events).toBe('a 1499ms u', { a: 'Added default/a initial', u: 'Updated default/a' });
      informer.start();
      ts.schedule(() => informer.stop(), 2500);
    });
  });

  it('should share one clock and one pass per tick among the handlers of a period, joined late or not', () => {
    const ts = testScheduler();
    const lists = jest.spyOn(StoreSnapshot.prototype, 'list'); // what a pass reads once
    try {
      ts.run(({ cold, expectObservable }) => {
        const lw = fakeListerWatcher();
        const list = cold<ListPage>('(p|)', { p: page([obj('a', '1')], '10') });
        lw.scriptList(list, list);
        const informer = createSharedInformer(lw, { reflector: PAGED, scheduler: ts, resyncPeriodMs: 1000 });
        const heard = new Subject<string>();
        const syncs = (name: string) => ({ onUpdate: (a: KubeObject, b: KubeObject) => void (a === b && heard.next(name)) });
        informer.addEventHandler(syncs('one'));
        informer.addEventHandler(syncs('two'));
        informer.addEventHandler(syncs('slow'), { resyncPeriodMs: 2500 });
        ts.schedule(() => informer.addEventHandler(syncs('late')), 1300); // joins the running clock
        informer.start();
        ts.schedule(() => informer.stop(), 2200);
        ts.schedule(() => informer.start(), 3000); // every period starts over
        ts.schedule(() => informer.stop(), 4200);
        ts.schedule(() => expect(lists).toHaveBeenCalledTimes(3), 4100); // the 1 s clock's ticks at 1 s, 2 s and 4 s
        // Ticks of the 1 s clock: 1 s, 2 s, (stopped) 4 s; the 2.5 s clock: none before each stop.
        // Replaced after the restart's relist: an update with old === new, as a sync, at 3 s.
        expectObservable(heard).toBe('1s (ab) 996ms (abc) 995ms (abdc) 994ms (abc)', { a: 'one', b: 'two', c: 'late', d: 'slow' });
      });
    } finally {
      lists.mockRestore();
    }
  });
});
