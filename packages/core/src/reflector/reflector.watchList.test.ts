/**
 * Streaming lists (watch-list, KEP-3157), the reflector's default, as kube-apiserver 1.36 sends
 * them: the initial ADDED events in key order, each with its own resource version, then the end
 * bookmark with the snapshot's; and servers that answer them as a plain watch. (Refusals and what
 * is remembered of them: reflector.watchListSupport.test.ts.)
 */
import { describe, expect, it } from '@jest/globals';
import { of } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import { WatchListUnsupportedError } from './reflectorErrors.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler, PAGED } from '@rxinformer/testing';
import { reflector } from './reflector.ts';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

const end = (rv: string) => ({ metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } });

describe('reflector with a streaming list', () => {
  it('should stream by default, up to the initial-events-end bookmark, and go on with live events on the same watch', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(
        cold('a b c d', {
          a: ev('ADDED', obj('p', '10')),
          b: ev('ADDED', obj('q', '11')),
          c: ev('BOOKMARK', end('50')),
          d: ev('MODIFIED', obj('p', '51')),
        }),
      );
      const r = start();
      flush();
      expect(data(r)).toEqual([
        [2, 'LIST@50:p,q'],
        [3, 'MODIFIED:p'],
      ]);
      expect(lw.watchCalls).toEqual([
        {
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
          resourceVersion: '',
          timeoutSeconds: 600,
        },
      ]);
      expect(lw.listCalls).toHaveLength(0);
    });
  });

  it('should page with useStreamingList false, never asking for initial events', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([obj('a', '1')], '2')));
      lw.scriptWatch(cold('-'));
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([[0, 'LIST@2:a']]);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents])).toEqual([['2', undefined]]);
    });
  });

  it('should page by default from a ListerWatcher that does not say it serves streaming lists (a hand-written one)', () => {
    const ts = testScheduler();
    ts.run(({ cold, flush }) => {
      const lw = fakeListerWatcher(); // no watchList: its watch would never send the initial events
      lw.scriptList(of(page([obj('a', '1')], '2')));
      lw.scriptWatch(cold('-'));
      const events: string[] = [];
      const sub = reflector(lw, { scheduler: ts, stallCheck: false }).subscribe((e) => {
        if (e.type === 'LIST') events.push(`LIST@${e.resourceVersion}:${e.items.map((o) => o.metadata?.name).join(',')}`);
      });
      ts.schedule(() => sub.unsubscribe(), 10_000); // the reflector never stops on its own
      flush();
      expect(events).toEqual(['LIST@2:a']);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents])).toEqual([['2', undefined]]);
    });
  });

  it('should take the resource version from the end bookmark alone, never from the initial events, and never ask for them again', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(
        // Key order: a (RV 12), b (RV 10), c (RV 11); the snapshot is at RV 20.
        cold('a b c d e |', {
          a: ev('ADDED', obj('a', '12')),
          b: ev('ADDED', obj('b', '10')),
          c: ev('ADDED', obj('c', '11')),
          d: ev('BOOKMARK', end('20')),
          e: ev('MODIFIED', obj('b', '21')),
        }),
        cold('|'), // the server ends each watch: re-watched from the last resource version
        cold('-|'),
        cold('1s |'),
      );
      const r = start({}, 10_000);
      flush();
      expect(data(r)).toEqual([
        [3, 'LIST@20:a,b,c'],
        [4, 'MODIFIED:b'],
      ]);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents ?? false])).toEqual([
        ['', true],
        ['21', false],
        ['21', false],
        ['21', false],
        ['21', false],
      ]);
      expect(lw.listCalls).toHaveLength(0);
    });
  });

  it('should stream the first list from the cache at RV "0" when asked, and relist consistently', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(
        cold('a b 1s #', { a: ev('ADDED', obj('a', '12')), b: ev('BOOKMARK', end('20')) }, new KubeApiError(410)),
        cold('a b', { a: ev('ADDED', obj('a', '30')), b: ev('BOOKMARK', end('31')) }),
      );
      const r = start({ initialListResourceVersion: '0' }, 10_000);
      flush();
      expect(data(r).map(([, d]) => d)).toEqual(['LIST@20:a', 'LIST@31:a']);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents])).toEqual([
        ['0', true],
        ['', true], // the relist after the 410: the most recent state
      ]);
    });
  });

  for (const [what, event] of [
    ['a MODIFIED event', ev('MODIFIED', obj('a', '13'))],
    ['a DELETED event', ev('DELETED', obj('a', '13'))],
    ['a plain bookmark', ev('BOOKMARK', { metadata: { resourceVersion: '13' } })],
  ] as const) {
    it(`should take ${what} before the end bookmark for a server that ignores sendInitialEvents, and page from then on`, () => {
      setup(({ lw, start, flush, cold }) => {
        lw.scriptWatch(
          cold('a b', { a: ev('ADDED', obj('a', '12')), b: event }),
          cold('1s #', undefined, new KubeApiError(410)),
          cold('-'),
        );
        lw.scriptList(of(page([obj('a', '13')], '14')), of(page([obj('a', '15')], '16')));
        const r = start({}, 10_000);
        flush();
        expect(data(r)).toEqual([
          [1, 'LIST@14:a'],
          [1001, 'LIST@16:a'], // the relist after the 410 pages too
        ]);
        const unsupported = statuses(r).find(([, s]) => s.lastError instanceof WatchListUnsupportedError)?.[1].lastError;
        expect(unsupported).toMatchObject({ reason: 'WatchListUnsupported', received: event.type });
        expect(lw.watchCalls.filter((c) => c.sendInitialEvents)).toHaveLength(1);
      });
    });
  }

  it('should take a stream that ends before the end bookmark for a plain watch too', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(cold('a |', { a: ev('ADDED', obj('a', '12')) }), cold('-'));
      lw.scriptList(of(page([obj('a', '12')], '14')));
      const r = start({}, 10_000);
      flush();
      expect(data(r)).toEqual([[1, 'LIST@14:a']]);
      expect(statuses(r).some(([, s]) => s.lastError instanceof WatchListUnsupportedError && s.lastError.received === 'closed')).toBe(true);
      expect(lw.watchCalls.filter((c) => c.sendInitialEvents)).toHaveLength(1);
    });
  });

  it('should take a stream silent for the stall check period before the end bookmark for a plain watch (a server without bookmarks)', () => {
    setup(({ lw, start, flush, cold }) => {
      // An older server sends the current objects as ADDED, then nothing while nothing changes.
      const ignored = cold('a', { a: ev('ADDED', obj('a', '12')) });
      lw.scriptWatch(ignored, cold('-'));
      lw.scriptList(of(page([obj('a', '12')], '14')));
      const r = start({ stallCheck: { afterMs: 60_000 } }, 100_000);
      flush();
      expect(data(r)).toEqual([[60_000, 'LIST@14:a']]);
      const unsupported = statuses(r).find(([, s]) => s.lastError instanceof WatchListUnsupportedError)?.[1].lastError;
      expect(unsupported).toMatchObject({ received: 'silence', message: expect.stringMatching(/the stream fell silent/) });
      expect(ignored.subscriptions).toEqual([{ subscribedFrame: 0, unsubscribedFrame: 60_000 }]);
      expect(lw.listCalls).toEqual([{ limit: 500 }]); // the paged list, no stall check's
    });
  });

  it('should check the watch a streaming list went on with for a stall, as any watch', () => {
    setup(({ lw, start, flush, cold }) => {
      const streamed = cold('a b', { a: ev('ADDED', obj('a', '12')), b: ev('BOOKMARK', end('20')) });
      lw.scriptWatch(streamed, cold('-'));
      lw.scriptList(of(page([], '25'))); // the stall check's list: the server moved on
      const r = start({ stallCheck: { afterMs: 60_000 } }, 100_000);
      flush();
      expect(data(r)).toEqual([[1, 'LIST@20:a']]);
      expect(lw.listCalls).toEqual([{ limit: 1, singlePage: true }]);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents])).toEqual([
        ['', true],
        ['20', undefined], // resumed from the end bookmark's, no initial events
      ]);
      expect(statuses(r).at(-1)?.[1]).toMatchObject({ stalledWatches: 1, lastError: { reason: 'WatchStalled' } });
    });
  });
});
