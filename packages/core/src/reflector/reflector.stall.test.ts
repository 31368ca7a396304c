/**
 * Stalled-watch detection in virtual time: a watch silent past `stallCheck.afterMs` is checked with
 * a one-object consistent list beside it; a server that moved on means a stall (reported, the watch
 * replaced by one from the last resourceVersion), the same resourceVersion a quiet collection.
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, of, throwError } from 'rxjs';
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import { reflector } from './reflector.ts';
import { WatchStalledError } from './reflectorErrors.ts';
import type { ListPage, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, PAGED } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

const on = { ...PAGED, stallCheck: { afterMs: 120_000 } } as const;
const errorsOf = (r: Parameters<typeof statuses>[0]) => statuses(r).flatMap(([t, s]) => (s.lastError ? [[t, s.lastError] as const] : []));

describe('reflector stall check', () => {
  it('should check a watch silent past the limit and, the server having moved on, report it and resume from the last RV', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([obj('a', '3')], '10')), cold('2s a|', { a: page([obj('b', '40')], '41') }));
      const silent = cold('5s a', { a: ev('MODIFIED', obj('a', '12')) });
      lw.scriptWatch(silent, cold('1s a', { a: ev('MODIFIED', obj('b', '40')) }));
      const r = start(on, 200_000);
      flush();
      // The check runs 120 s after the last event, at 125 s, and answers 2 s later.
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 1, singlePage: true }]);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '12']);
      expect(silent.subscriptions).toEqual([{ subscribedFrame: 0, unsubscribedFrame: 127_000 }]);
      const [[at, error]] = errorsOf(r);
      expect(at).toBe(127_000);
      expect(error).toBeInstanceOf(WatchStalledError);
      expect(error).toMatchObject({ silentMs: 120_000, lastSeen: '12', serverAt: '41' });
      expect(statuses(r).at(-1)?.[1]).toMatchObject({ phase: 'watching', stalledWatches: 1, relistCount: 0 });
      // Resumed, not relisted: no second LIST, and the new watch's change comes through.
      expect(data(r)).toEqual([
        [0, 'LIST@10:a'],
        [5000, 'MODIFIED:a'],
        [128_000, 'MODIFIED:b'],
      ]);
    });
  });

  it('should keep watching a quiet collection (same RV) and check again each period, quietly', () => {
    setup(({ lw, start, flush, cold }) => {
      const same = cold('1s a|', { a: page([obj('a', '3')], '10') });
      lw.scriptList(of(page([obj('a', '3')], '10')), same, same);
      const watch = cold<WatchEvent>('-');
      lw.scriptWatch(watch);
      const r = start(on, 250_000);
      flush();
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 1, singlePage: true }, { limit: 1, singlePage: true }]);
      expect(same.subscriptions.map((s) => s.subscribedFrame)).toEqual([120_000, 240_000]);
      expect(lw.watchCalls).toHaveLength(1);
      expect(watch.subscriptions).toEqual([{ subscribedFrame: 0, unsubscribedFrame: 250_000 }]);
      expect(errorsOf(r)).toEqual([]);
    });
  });

  it('should count silence from the last event or bookmark', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')));
      lw.scriptWatch(
        cold('100s a 59999ms b', { a: ev('ADDED', obj('a', '11')), b: ev('BOOKMARK', { metadata: { resourceVersion: '15' } }) }),
      );
      const check = cold('a|', { a: page([], '15') });
      lw.scriptList(check);
      start(on, 300_000);
      flush();
      // Events at 100 s and 160 s: the first check at 280 s, the bookmark's RV the one compared.
      expect(check.subscriptions.map((s) => s.subscribedFrame)).toEqual([280_000]);
      expect(lw.watchCalls).toHaveLength(1);
    });
  });

  it('should take an event during the check as a live watch, whatever the check answers', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')), cold('5s a|', { a: page([], '99') }));
      lw.scriptWatch(cold('122s a', { a: ev('ADDED', obj('a', '11')) }));
      const r = start(on, 200_000);
      flush();
      expect(lw.watchCalls).toHaveLength(1);
      expect(errorsOf(r)).toEqual([]);
      expect(data(r).at(-1)).toEqual([122_000, 'ADDED:a']);
    });
  });

  it('should keep watching when the check fails, and check again later', () => {
    setup(({ lw, start, flush, cold }) => {
      const failing = cold<ListPage>('1s #', undefined, new KubeApiError(500, { reason: 'InternalError' }));
      lw.scriptList(of(page([], '10')), failing, of(page([], '10')));
      lw.scriptWatch(NEVER);
      const r = start(on, 250_000);
      flush();
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 1, singlePage: true }, { limit: 1, singlePage: true }]);
      expect(lw.watchCalls).toHaveLength(1);
      expect(errorsOf(r)).toEqual([]);
    });
  });

  it('should drop a check still running when the watch ends, and check the next watch on its own clock', () => {
    setup(({ lw, start, flush, cold }) => {
      const slow = cold('20s a|', { a: page([], '50') });
      lw.scriptList(of(page([], '10')), slow, of(page([], '10')));
      lw.scriptWatch(cold('130s |'), NEVER);
      const r = start(on, 260_000);
      flush();
      // The check from 120 s is left when the watch closes at 130 s; the next watch is checked at 250 s.
      expect(slow.subscriptions).toEqual([{ subscribedFrame: 120_000, unsubscribedFrame: 130_000 }]);
      expect(lw.listCalls).toHaveLength(3);
      expect(lw.watchCalls).toHaveLength(2);
      expect(errorsOf(r)).toEqual([]);
    });
  });

  it('should never check with stallCheck false, and check after two minutes by default', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([], '10')));
      start({ ...PAGED, stallCheck: false }, 1_000_000);
      flush();
      expect(lw.listCalls).toHaveLength(1);
    });
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([], '10')));
      start({ ...PAGED, stallCheck: {} }, 130_000);
      flush();
      expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 1, singlePage: true }]);
    });
  });

  it('should refuse an afterMs that is not a positive number', () => {
    for (const afterMs of [0, -1, Number.NaN, Infinity])
      expect(() => reflector(fakeListerWatcher(), { stallCheck: { afterMs } })).toThrow(InvalidOptionsError);
    expect(() => reflector(fakeListerWatcher(), { stallCheck: { afterMs: 1 } })).not.toThrow();
  });

  it('should not check a watch that fails first', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '10')));
      lw.scriptWatch(
        cold('60s #', undefined, new KubeApiError(500, {})),
        throwError(() => new KubeApiError(500, {})),
      );
      start(on, 100_000);
      flush();
      expect(lw.listCalls).toHaveLength(1);
    });
  });
});
