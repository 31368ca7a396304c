import { describe, expect, it } from '@jest/globals';
import { of } from 'rxjs';
import { KubeApiError, RequestTimeoutError } from '../errors.ts';
import { WATCH_OPENED, type WatchItem } from '../types.ts';
import { page, testObject as obj, PAGED } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

/** Each status as `time phase lastError-reason` (`-` without one). */
const phases = (r: Parameters<typeof statuses>[0]) =>
  statuses(r).map(([t, s]) => `${t} ${s.phase} ${(s.lastError as KubeApiError | undefined)?.reason ?? '-'}`);

const notOpened = () => new RequestTimeoutError('/api/v1/pods?watch=true', 10_000, { reason: 'WatchNotOpened' });

describe('reflector: connecting until the watch opens', () => {
  it('should be connecting from the watch request until WATCH_OPENED, then watching', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([obj('a', '3')], '10')));
      lw.scriptWatch(cold<WatchItem>('5s o 10s a', { o: WATCH_OPENED, a: ev('ADDED', obj('b', '11')) }));
      const r = start(PAGED, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 listing -', '0 listing -', '0 connecting -', '5000 watching -']);
      expect(data(r)).toEqual([
        [0, 'LIST@10:a'],
        [15_001, 'ADDED:b'],
      ]);
    });
  });

  it('should be watching on the first event of a ListerWatcher that never sends WATCH_OPENED', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')));
      lw.scriptWatch(cold<WatchItem>('3s a', { a: ev('BOOKMARK', { metadata: { resourceVersion: '12' } }) }));
      const r = start(PAGED, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 listing -', '0 listing -', '0 connecting -', '3000 watching -', '3000 watching -']);
      expect(statuses(r).at(-1)?.[1].lastSyncResourceVersion).toBe('12');
    });
  });

  it('should be connecting again for each re-watch after a clean close, until that watch opens', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')));
      lw.scriptWatch(
        cold<WatchItem>('o 2s |', { o: WATCH_OPENED }),
        cold<WatchItem>('1s o', { o: WATCH_OPENED }), // the re-watch waits 1 s for its answer
      );
      const r = start(PAGED, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 listing -', '0 listing -', '0 connecting -', '0 watching -', '2001 connecting -', '3001 watching -']);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '10']);
      expect(lw.listCalls).toHaveLength(1); // a resume, not a relist
    });
  });

  it('should never report watching while watches do not open: connecting, the timeout, a backoff, connecting again', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')));
      // What an HTTP ListerWatcher does with a watch whose headers never come (see httpLimits).
      lw.scriptWatch(
        cold<WatchItem>('10s #', undefined, notOpened()),
        cold<WatchItem>('10s #', undefined, notOpened()),
        cold<WatchItem>('2s o 1s a', { o: WATCH_OPENED, a: ev('ADDED', obj('x', '11')) }),
      );
      const r = start({ ...PAGED, backoff: { initialMs: 1_000 } }, 60_000);
      flush();
      expect(phases(r)).toEqual([
        '0 listing -',
        '0 listing -',
        '0 connecting -',
        '10000 backingOff WatchNotOpened',
        '11000 connecting WatchNotOpened', // still failing to open: the error stays on the status
        '21000 backingOff WatchNotOpened',
        '23000 connecting WatchNotOpened',
        '25000 watching WatchNotOpened', // open; the error goes with the first event
        '26001 watching -',
      ]);
      expect(
        statuses(r)
          .filter(([, s]) => s.phase === 'backingOff')
          .map(([, s]) => s.backoffMs),
      ).toEqual([1_000, 2_000]);
      expect(lw.listCalls).toHaveLength(1); // the watch is retried from its resource version
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '10', '10']);
    });
  });

  it('should go from listing straight to watching after a streaming list, whose stream is open already', () => {
    setup(({ lw, start, flush, cold }) => {
      const end = { metadata: { resourceVersion: '20', annotations: { 'k8s.io/initial-events-end': 'true' } } };
      lw.scriptWatch(cold<WatchItem>('o a b', { o: WATCH_OPENED, a: ev('ADDED', obj('a', '12')), b: ev('BOOKMARK', end) }));
      const r = start({}, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 listing -', '2 listing -', '2 watching -']); // synced, then watching: never connecting
      expect(data(r)).toEqual([[2, 'LIST@20:a']]);
    });
  });
});
