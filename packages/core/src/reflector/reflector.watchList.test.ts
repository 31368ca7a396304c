import { describe, expect, it } from '@jest/globals';
import { of } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import { WatchListUnsupportedError } from './reflectorErrors.ts';
import { page, testObject as obj } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

// Streaming lists (watch-list) as kube-apiserver 1.36 sends them: the initial ADDED events in key
// order, each with its own resource version, then the end bookmark with the snapshot's.
const end = (rv: string) => ({ metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } });

describe('reflector with a streaming list', () => {
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
      const r = start({ useStreamingList: true }, 10_000);
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
        const r = start({ useStreamingList: true }, 10_000);
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
      const r = start({ useStreamingList: true }, 10_000);
      flush();
      expect(data(r)).toEqual([[1, 'LIST@14:a']]);
      expect(statuses(r).some(([, s]) => s.lastError instanceof WatchListUnsupportedError && s.lastError.received === 'closed')).toBe(true);
      expect(lw.watchCalls.filter((c) => c.sendInitialEvents)).toHaveLength(1);
    });
  });
});
