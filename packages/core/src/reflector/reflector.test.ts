import { describe, expect, it } from '@jest/globals';
import { NEVER, Observable, first, of, throwError, type Subscription } from 'rxjs';
import { InvalidOptionsError, KubeApiError, WatchDecodeError } from '../errors.ts';
import { reflector } from './reflector.ts';
import type { WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, PAGED } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

describe('reflector', () => {
  it('should follow continue tokens and emit one LIST with the first page resource version', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([obj('a', '3')], '10', 'tok1')), of(page([obj('b', '4')], '11', 'tok2')), of(page([obj('c', '5')], '12')));
      const r = start({ ...PAGED, random: () => 0.5 });
      flush();
      expect(data(r)).toEqual([[0, 'LIST@10:a,b,c']]);
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 500, continue: 'tok1' }, { limit: 500, continue: 'tok2' }]);
      expect(lw.watchCalls).toEqual([{ resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 450 }]);
      // The watch (NEVER) has not opened.
      expect(statuses(r).at(-1)?.[1]).toMatchObject({
        phase: 'connecting',
        hasSynced: true,
        lastSyncResourceVersion: '10',
        relistCount: 0,
      });
      r.sub.unsubscribe();
    });
  });

  it('should report the pages and objects listed so far on the status while a paged list runs', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(
        of(page([obj('a', '3'), obj('b', '4')], '10', 'tok1')),
        of(page([obj('c', '5')], '10', 'tok2')),
        of(page([obj('d', '6')], '10')),
      );
      const r = start(PAGED);
      flush();
      const progress = statuses(r)
        .filter(([, s]) => s.phase === 'listing')
        .map(([, s]) => s.listProgress);
      expect(progress).toEqual([
        { pages: 0, items: 0 },
        { pages: 1, items: 2 },
        { pages: 2, items: 3 },
      ]);
      r.sub.unsubscribe();
    });
  });

  it('should use RV "0" for the first list when asked, then watch from the list', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([], '7')));
      const r = start({ ...PAGED, initialListResourceVersion: '0', pageSize: 2 });
      flush();
      expect(lw.listCalls).toEqual([{ limit: 2, resourceVersion: '0' }]);
      expect(lw.watchCalls[0]).toMatchObject({
        resourceVersion: '7',
        timeoutSeconds: 300,
      });
      r.sub.unsubscribe();
    });
  });

  it('should re-watch from the last resource version (events and bookmarks) after a clean close, without relisting', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      lw.scriptWatch(
        cold('5s a 5s b|', { a: ev('ADDED', obj('x', '2')), b: ev('MODIFIED', obj('x', '3')) }),
        cold('2s a|', { a: ev('BOOKMARK', { metadata: { resourceVersion: '9' } }) }),
      );
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@1:'],
        [5000, 'ADDED:x'],
        [10001, 'MODIFIED:x'],
        [12002, 'BOOKMARK@9'],
      ]);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '3', '9']);
      expect(lw.listCalls).toHaveLength(1);
      r.sub.unsubscribe();
    });
  });

  it('should relist with a consistent read on 410, as an ERROR event or as an HTTP status', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([obj('a', '1')], '5')), of(page([obj('b', '20')], '21')), of(page([obj('c', '30')], '31')));
      lw.scriptWatch(
        cold('1s a|', { a: ev('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }) }),
        cold('3m #', undefined, new KubeApiError(410)), // after 2 minutes of health: at once again
      );
      const r = start({ ...PAGED, initialListResourceVersion: '0' });
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@5:a'],
        [1000, 'LIST@21:b'],
        [181_000, 'LIST@31:c'],
      ]);
      expect(lw.listCalls).toEqual([{ limit: 500, resourceVersion: '0' }, { limit: 500 }, { limit: 500 }]);
      expect(statuses(r).at(-1)?.[1]).toMatchObject({ relistCount: 2, hasSynced: true });
      expect(statuses(r).some(([, s]) => (s.lastError as KubeApiError | undefined)?.code === 410)).toBe(true);
      r.sub.unsubscribe();
    });
  });

  it('should relist from scratch when a continue token expires', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(
        of(page([obj('a', '1')], '5', 'tok')),
        throwError(() => new KubeApiError(410, { reason: 'Expired' })),
        of(page([obj('b', '8')], '9')),
      );
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([[0, 'LIST@9:b']]);
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 500, continue: 'tok' }, { limit: 500 }]);
      r.sub.unsubscribe();
    });
  });

  it('should back off exponentially to the cap, with jitter within bounds', () => {
    for (const [random, expected] of [
      [0, [0, 800, 2400, 5600, 12000, 24800, 50400, 80400, 110400]],
      [1, [0, 1200, 3600, 8400, 18000, 37200, 75600, 120600, 165600]],
    ] as const) {
      setup(({ lw, start, flush, ts }) => {
        const times: number[] = [];
        const failing = new Observable<never>((s) => {
          times.push(ts.now());
          s.error(new KubeApiError(500));
        });
        lw.scriptList(...Array.from({ length: 9 }, () => failing));
        const r = start({ ...PAGED, random: () => random });
        flush();
        expect(times).toEqual(expected);
        const delays = statuses(r)
          .filter(([, s]) => s.phase === 'backingOff')
          .map(([, s]) => s.backoffMs);
        expect(delays.slice(0, 3)).toEqual(random === 0 ? [800, 1600, 3200] : [1200, 2400, 4800]);
        r.sub.unsubscribe();
      });
    }
  });

  it('should honour Retry-After as a floor of the delay', () => {
    setup(({ lw, start, flush, ts }) => {
      const times: number[] = [];
      lw.scriptList(
        new Observable((s) => {
          times.push(ts.now());
          s.error(new KubeApiError(429, { retryAfterSeconds: 7 }));
        }),
        new Observable((s) => {
          times.push(ts.now());
          s.next(page([], '3'));
          s.complete();
        }),
      );
      const r = start(PAGED);
      flush();
      expect(times).toEqual([0, 7000]);
      expect(statuses(r).find(([, s]) => s.phase === 'backingOff')?.[1]).toMatchObject({ backoffMs: 7000 });
      r.sub.unsubscribe();
    });
  });

  it('should reset the backoff after two minutes of health', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      const boom = (t: string) => cold<WatchEvent>(`${t} #`, undefined, new Error('connection reset'));
      // watch 1 fails at once (800), watch 2 at once (1600), watch 3 is healthy 3 min then fails: back to 800.
      lw.scriptWatch(boom('0ms'), boom('0ms'), cold('1s a 3m #', { a: ev('ADDED', obj('x', '2')) }, new Error('reset')), NEVER);
      const r = start(PAGED);
      flush();
      const delays = statuses(r)
        .filter(([, s]) => s.phase === 'backingOff')
        .map(([, s]) => s.backoffMs);
      expect(delays).toEqual([800, 1600, 800]);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '1', '1', '2']);
      r.sub.unsubscribe();
    });
  });

  it('should reconnect an idle watch after its timeout plus the grace', () => {
    setup(({ lw, start, flush, ts }) => {
      lw.scriptList(of(page([], '4')));
      const times: number[] = [];
      const stalled = new Observable<never>(() => {
        times.push(ts.now());
      });
      lw.scriptWatch(stalled, stalled);
      const r = start({ ...PAGED, minWatchTimeoutSeconds: 10, idleGraceMs: 5000 }, 40_000);
      flush();
      expect(times).toEqual([0, 15000]);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['4', '4', '4']);
      expect(statuses(r).some(([, s]) => s.lastError?.name === 'WatchIdleError')).toBe(true);
      r.sub.unsubscribe();
    });
  });

  it('should relist after watches that close at once with no event, repeatedly', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')), of(page([obj('n', '5')], '6')));
      lw.scriptWatch(cold<WatchEvent>('|'), cold<WatchEvent>('|'), cold<WatchEvent>('|'));
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@1:'],
        [800, 'LIST@6:n'],
      ]);
      expect(lw.listCalls[1]).toEqual({ limit: 500 });
      expect(statuses(r).some(([, s]) => s.lastError?.name === 'WatchClosedError')).toBe(true);
      r.sub.unsubscribe();
    });
  });

  it('should back off on a malformed line, report it, and resume the watch from the last resource version', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      lw.scriptWatch(cold('a #', { a: ev('ADDED', obj('x', '2')) }, new WatchDecodeError('{oops', 'Unexpected token')), NEVER);
      const r = start(PAGED);
      flush();
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '2']);
      const failed = statuses(r).find(([, s]) => s.phase === 'backingOff');
      expect(failed?.[1].lastError).toBeInstanceOf(WatchDecodeError);
      expect(failed?.[0]).toBe(1);
      r.sub.unsubscribe();
    });
  });

  it('should treat a non-410 ERROR event as an error, and skip unknown event types with a typed error', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      lw.scriptWatch(
        cold('a b c|', {
          a: ev('WHAT' as never, obj('q', '2')),
          b: ev('ADDED', obj('y', '3')),
          c: ev('ERROR', { kind: 'Status', code: 500, message: 'etcd down' }),
        }),
        NEVER,
      );
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@1:'],
        [1, 'ADDED:y'],
      ]);
      expect(statuses(r).map(([, s]) => s.lastError?.name)).toContain('UnknownWatchEventError');
      expect(statuses(r).find(([, s]) => s.phase === 'backingOff')?.[1].lastError?.message).toBe('etcd down');
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '3']);
      r.sub.unsubscribe();
    });
  });

  it('should refuse list pages without a resource version and relist after a backoff', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([obj('a', '1')], undefined)), of(page([obj('a', '1')], '2')));
      const r = start(PAGED);
      flush();
      expect(data(r)).toEqual([[800, 'LIST@2:a']]);
      expect(statuses(r)[1][1].lastError?.name).toBe('InvalidObjectError');
      r.sub.unsubscribe();
    });
  });

  it('should abort the request in flight on unsubscribe', () => {
    setup(({ lw, start, cold, ts, flush }) => {
      lw.scriptList(of(page([], '1')));
      const watch = cold('-a-b-c-d', {
        a: ev('ADDED', obj('a', '2')),
        b: ev('ADDED', obj('b', '3')),
        c: ev('ADDED', obj('c', '4')),
        d: ev('ADDED', obj('d', '5')),
      });
      lw.scriptWatch(watch);
      const r = start(PAGED);
      ts.schedule(() => r.sub.unsubscribe(), 4); // before the default stop
      flush();
      ts.expectSubscriptions(watch.subscriptions).toBe('^---!');
      expect(data(r).map(([, d]) => d)).toEqual(['LIST@1:', 'ADDED:a', 'ADDED:b']);
    });
  });

  it('should start nothing more once its consumer leaves while an event is being emitted', () => {
    setup(({ lw, ts, cold, flush }) => {
      // The consumer leaves on the replace, inside the step that would open the watch.
      lw.scriptList(of(page([obj('a', '1')], '1')));
      const watch = cold('-a', { a: ev('ADDED', obj('b', '2')) });
      lw.scriptWatch(watch);
      const seen: string[] = [];
      reflector(lw, { scheduler: ts, useStreamingList: false })
        .pipe(first((e) => e.type === 'LIST'))
        .subscribe((e) => seen.push(e.type));
      // A consumer that leaves on the status of a failed watch: no backoff timer is left behind.
      const other = fakeListerWatcher();
      other.scriptList(of(page([], '1')), of(page([], '1')));
      other.scriptWatch(cold('a', { a: ev('ERROR', { kind: 'Status', code: 500 }) }), NEVER);
      const sub: Subscription = reflector(other, { scheduler: ts, useStreamingList: false }).subscribe((e) => {
        if (e.type === 'STATUS' && e.status.phase === 'backingOff') sub.unsubscribe();
      });
      flush();
      expect(seen).toEqual(['LIST']);
      expect(lw.watchCalls).toHaveLength(0);
      expect(watch.subscriptions).toHaveLength(0);
      expect(other.watchCalls).toHaveLength(1);
      expect(other.listCalls).toHaveLength(1);
      expect(ts.actions).toHaveLength(0); // no timer scheduled, none left
    });
  });

  it('should clear the last error on the next good watch event or bookmark', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      lw.scriptWatch(
        throwError(() => new KubeApiError(500)),
        cold('-a', { a: ev('BOOKMARK', { metadata: { resourceVersion: '5' } }) }),
        NEVER,
      );
      const idle = { idleGraceMs: 0, minWatchTimeoutSeconds: 1 };
      lw.scriptWatch(cold('a', { a: ev('ADDED', obj('x', '6')) }));
      const r = start({ ...PAGED, ...idle }, 5000);
      flush();
      const phases = statuses(r).map(([t, s]) => `${t} ${s.phase} ${s.lastError?.name ?? '-'}`);
      // 500 → backoff → re-watch, connecting (error still shown) → bookmark opens it and clears it.
      expect(phases).toContain('800 connecting KubeApiError');
      expect(phases).toContain('801 watching KubeApiError');
      expect(phases).toContain('801 watching -');
      // An idle watch is reported, then cleared by the next watch's event.
      expect(statuses(r).some(([, s]) => s.lastError?.name === 'WatchIdleError')).toBe(true);
      const added = data(r).find(([, d]) => d === 'ADDED:x')![0] as number;
      expect(
        statuses(r)
          .filter(([t]) => t <= added)
          .at(-1)?.[1].lastError,
      ).toBeUndefined();
      expect(data(r).map(([, d]) => d)).toEqual(['LIST@1:', 'BOOKMARK@5', 'ADDED:x']);
    });
  });

  it('should throw InvalidOptionsError at the call for invalid options', () => {
    const lw = fakeListerWatcher();
    expect(() => reflector(lw, { pageSize: 0 })).toThrow(InvalidOptionsError);
    expect(() => reflector(lw, { pageSize: 2.5 })).toThrow(/pageSize must be an integer/); // the API's limit is an int64
    expect(() => reflector(lw, { maxEmptyWatches: 1.5 })).toThrow(/maxEmptyWatches must be an integer/);
    expect(() => reflector(lw, { minWatchTimeoutSeconds: Number.NaN })).toThrow(/minWatchTimeoutSeconds/);
    expect(() => reflector(lw, { backoff: { initialMs: -1 } })).toThrow(/backoff.initialMs/);
    expect(() => reflector(lw, { initialListResourceVersion: '7' as '0' })).toThrow(InvalidOptionsError);
  });
});
