/**
 * The reflector resuming a restored snapshot (`resumeFrom`): a watch from the snapshot's resource
 * version instead of a list, synced by the server's first answer, a list on 410.
 */
import { describe, expect, it } from '@jest/globals';
import { of } from 'rxjs';
import { KubeApiError, NetworkError } from '../errors.ts';
import { WATCH_OPENED, type WatchItem } from '../types.ts';
import { RESUME_WATCH_SECONDS } from './reflectorOptions.ts';
import { reflector } from './reflector.ts';
import { fakeListerWatcher, page, PAGED, testObject as obj, testScheduler } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

/** The check a resumed watch asks for as it opens: the server's current resource version, one object at most. */
const CHECK = { limit: 1, singlePage: true };
const gone = ev('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (9)' });
/** Each status as `time phase synced`. */
const phases = (r: Parameters<typeof statuses>[0]) => statuses(r).map(([t, s]) => `${t} ${s.phase}${s.hasSynced ? ' synced' : ''}`);

describe('reflector: resuming a restored snapshot', () => {
  it('should watch from the snapshot resource version, without a list, and sync on the first event', () => {
    setup(({ lw, start, flush, cold }) => {
      // The server's answer from RV 5, then its end of the short watch (3 s).
      lw.scriptWatch(cold<WatchItem>('o 10ms a 2989ms |', { o: WATCH_OPENED, a: ev('MODIFIED', obj('a', '6')) }));
      const r = start({ resumeFrom: () => '5' }, 60_000);
      flush();
      expect(lw.listCalls).toEqual([CHECK]); // no list: only the check, which this server never answers
      expect(lw.watchCalls[0]).toMatchObject({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: RESUME_WATCH_SECONDS });
      expect(lw.watchCalls[1]).toMatchObject({ resourceVersion: '6', timeoutSeconds: 300 }); // then watches as usual
      expect(phases(r)).toEqual(['0 connecting', '0 watching', '11 watching synced', '3001 connecting synced']);
      expect(statuses(r)[0][1].lastSyncResourceVersion).toBe('5');
      expect(data(r)).toEqual([[11, 'MODIFIED:a']]);
    });
  });

  it("should sync on a quiet resource's bookmark, then watch on with the usual timeout", () => {
    setup(({ lw, start, flush, cold }) => {
      // kube-apiserver's bookmark 2 s before the short watch's timeout, then its end.
      lw.scriptWatch(cold<WatchItem>('o 1s b 1999ms |', { o: WATCH_OPENED, b: ev('BOOKMARK', { metadata: { resourceVersion: '9' } }) }));
      const r = start({ resumeFrom: () => '5', minWatchTimeoutSeconds: 300 }, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 connecting', '0 watching', '1001 watching synced', '3001 connecting synced']);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.timeoutSeconds])).toEqual([
        ['5', RESUME_WATCH_SECONDS],
        ['9', 300],
      ]);
      expect(lw.listCalls).toEqual([CHECK]);
    });
  });

  it('should list at once, consistently, when the server refuses the resource version (410), as its first list', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(cold<WatchItem>('o g', { o: WATCH_OPENED, g: gone }));
      // The check's answer (the server moved on: not current), then the relist.
      lw.scriptList(of(page([obj('a', '12')], '12')), of(page([obj('a', '12')], '12')));
      const r = start({ resumeFrom: () => '5', ...PAGED }, 60_000);
      flush();
      expect(lw.listCalls).toEqual([CHECK, { limit: 500 }]); // no resourceVersion: a consistent read
      expect(data(r)).toEqual([[1, 'LIST@12:a']]);
      const last = statuses(r).at(-1)![1];
      expect(last).toMatchObject({ hasSynced: true, relistCount: 0, lastSyncResourceVersion: '12' });
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.timeoutSeconds])).toEqual([
        ['5', RESUME_WATCH_SECONDS],
        ['12', 300],
      ]);
    });
  });

  it('should sync at once when the check finds the server still at the snapshot resource version', () => {
    setup(({ lw, start, flush, cold }) => {
      // A quiet resource: the watch sends nothing before its end; the check answers at RV 5.
      lw.scriptWatch(cold<WatchItem>('o 2999ms |', { o: WATCH_OPENED }));
      lw.scriptList(cold('3ms (p|)', { p: page([obj('a', '5')], '5') }));
      const r = start({ resumeFrom: () => '5', minWatchTimeoutSeconds: 300 }, 60_000);
      flush();
      expect(phases(r)).toEqual(['0 connecting', '0 watching', '3 watching synced', '3000 connecting synced']);
      expect(data(r)).toEqual([[3, 'BOOKMARK@5']]);
      expect(lw.listCalls).toEqual([CHECK]);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.timeoutSeconds])).toEqual([
        ['5', RESUME_WATCH_SECONDS],
        ['5', 300],
      ]);
    });
  });

  it('should not take a check answered after the server moved on for a stall, and sync on the event', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(cold<WatchItem>('o 9ms a', { o: WATCH_OPENED, a: ev('MODIFIED', obj('a', '7')) }));
      lw.scriptList(cold('3ms (p|)', { p: page([obj('a', '7')], '7') }));
      const r = start({ resumeFrom: () => '5' }, 1000);
      flush();
      expect(phases(r)).toEqual(['0 connecting', '0 watching', '10 watching synced']);
      expect(statuses(r).every(([, s]) => s.lastError === undefined)).toBe(true);
    });
  });

  it('should back off after a network failure and resume from the same resource version, still unsynced', () => {
    setup(({ lw, start, flush, cold }) => {
      const reset = new NetworkError('ConnectionReset', 'socket hang up');
      lw.scriptWatch(cold<WatchItem>('5ms #', undefined, reset), cold<WatchItem>('a', { a: ev('ADDED', obj('b', '7')) }));
      const r = start({ resumeFrom: () => '5', backoff: { initialMs: 800, jitter: 0 } }, 10_000);
      flush();
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.timeoutSeconds])).toEqual([
        ['5', RESUME_WATCH_SECONDS],
        ['5', RESUME_WATCH_SECONDS],
      ]);
      // opened by the event, the error cleared by it, then synced by it
      expect(phases(r)).toEqual(['0 connecting', '5 backingOff', '805 connecting', '805 watching', '805 watching', '805 watching synced']);
      expect(lw.listCalls).toEqual([]);
    });
  });

  it('should stream its first list, consistently, when the server refuses the resource version (410)', () => {
    setup(({ lw, start, flush, cold }) => {
      const end = ev('BOOKMARK', { metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } });
      lw.scriptWatch(
        cold<WatchItem>('o g', { o: WATCH_OPENED, g: gone }),
        cold<WatchItem>('a e', { a: ev('ADDED', obj('a', '12')), e: end }),
      );
      lw.scriptList(of(page([obj('a', '12')], '12'))); // the check's answer
      const r = start({ resumeFrom: () => '5' }, 60_000);
      flush();
      expect(lw.listCalls).toEqual([CHECK]);
      expect(lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents ?? false])).toEqual([
        ['5', false],
        ['', true], // no resourceVersion: the most recent state
      ]);
      expect(data(r)).toEqual([[2, 'LIST@12:a']]);
      expect(statuses(r).at(-1)![1]).toMatchObject({ hasSynced: true, relistCount: 0, lastSyncResourceVersion: '12' });
    });
  });

  it('should relist, not resume, in a run after one that synced (and not ask where to resume)', () => {
    const ts = testScheduler();
    ts.run(({ cold, flush }) => {
      const lw = fakeListerWatcher();
      lw.scriptWatch(cold<WatchItem>('a', { a: ev('ADDED', obj('b', '7')) }));
      lw.scriptList(of(page([obj('b', '8')], '8')));
      let asked = 0;
      const r$ = reflector(lw, { scheduler: ts, stallCheck: false, resumeFrom: () => (++asked, '5'), ...PAGED });
      const first = r$.subscribe();
      ts.schedule(() => first.unsubscribe(), 10);
      ts.schedule(() => {
        const second = r$.subscribe();
        ts.schedule(() => second.unsubscribe(), 10);
      }, 20);
      flush();
      expect(lw.watchCalls[0].resourceVersion).toBe('5');
      expect(lw.listCalls).toEqual([{ limit: 500 }]); // the second run: a consistent relist
      expect(asked).toBe(2); // asked, but a run after a sync relists whatever it says
    });
  });

  it('should list as usual without a resource version to resume from', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([obj('a', '3')], '10')));
      const r = start({ resumeFrom: () => undefined, ...PAGED }, 1000);
      flush();
      expect(lw.listCalls).toHaveLength(1);
      expect(data(r)).toEqual([[0, 'LIST@10:a']]);
    });
  });

  it('should treat an ERROR that is not 410 on the resumed watch as a failure to back off from', () => {
    setup(({ lw, start, flush, cold }) => {
      const forbidden = ev('ERROR', { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom' });
      lw.scriptWatch(cold<WatchItem>('g', { g: forbidden }));
      const r = start({ resumeFrom: () => '5', backoff: { initialMs: 800, jitter: 0 } }, 700);
      flush();
      expect(statuses(r).at(-1)![1]).toMatchObject({ phase: 'backingOff', hasSynced: false });
      expect((statuses(r).at(-1)![1].lastError as KubeApiError).code).toBe(500);
      expect(lw.listCalls).toEqual([]);
    });
  });
});
