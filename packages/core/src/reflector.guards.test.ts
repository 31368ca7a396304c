/**
 * The reflector against servers that misbehave: 410 to everything, huge or malformed Retry-After,
 * continue tokens forever, objects of another kind. Virtual time throughout.
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, Observable, defer, of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { KubeApiError } from './errors.ts';
import { reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflectorModel.ts';
import type { ListerWatcher, ListPage, WatchEvent } from './types.ts';
import { page, testObject as obj } from '../test/fakeListerWatcher.ts';
import { ev, setup, statuses } from '../test/reflectorHarness.ts';

const expired = () => new KubeApiError(410, { reason: 'Expired', message: 'too old resource version' });
const expiredEvent = ev('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });

/**
 * Runs a reflector for `ms` of virtual time over a ListerWatcher whose list and watch answer with
 * `list()` / `watch()` at every call, and returns the virtual times of the lists. A hot loop is
 * cut after 1000 calls (the source then hangs), so a regression fails instead of hanging.
 */
function countLists(
  answers: { list: () => Observable<ListPage>; watch: () => Observable<WatchEvent> },
  ms: number,
  options: ReflectorOptions = {},
): number[] {
  const lists: number[] = [];
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  ts.run(({ flush }) => {
    let calls = 0;
    const guard = <T>(make: () => Observable<T>) => defer(() => (++calls > 1000 ? NEVER : make()));
    const lw: ListerWatcher = {
      list: () => {
        lists.push(ts.now());
        return guard(answers.list);
      },
      watch: () => guard(answers.watch),
    };
    const sub = reflector(lw, { scheduler: ts, random: () => 0, ...options }).subscribe();
    ts.schedule(() => sub.unsubscribe(), ms);
    flush();
  });
  return lists;
}

describe('reflector on repeated 410 Gone', () => {
  const goodList = () => of(page([obj('a', '1')], '5'));

  it('should back off between relists when every list answers 410', () => {
    const lists = countLists({ list: () => throwError(expired), watch: () => NEVER }, 3000);
    // At once after the first 410, then 800, 1600… (random 0: no jitter).
    expect(lists).toEqual([0, 0, 800, 2400]);
  });

  it('should back off between relists when every watch ends with an ERROR 410 event', () => {
    const lists = countLists({ list: goodList, watch: () => of(expiredEvent) }, 3000);
    expect(lists).toEqual([0, 0, 800, 2400]);
  });

  it('should back off between relists when every watch answers HTTP 410', () => {
    const lists = countLists({ list: goodList, watch: () => throwError(expired) }, 3000);
    expect(lists).toEqual([0, 0, 800, 2400]);
  });

  it('should reach the backoff cap when 410s go on, with jitter', () => {
    const lists = countLists({ list: () => throwError(expired), watch: () => NEVER }, 200_000, { random: () => 1 });
    const gaps = lists.slice(1).map((t, i) => t - lists[i]);
    // jitter 0.5 at random 1: 1.5 × (800, 1600, … capped at 30 000)
    expect(gaps).toEqual([0, 1200, 2400, 4800, 9600, 19_200, 38_400, 45_000, 45_000]);
  });

  it('should relist at once on a single 410 after a healthy watch, even after repeated ones', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(goodList(), goodList(), goodList(), goodList());
      lw.scriptWatch(
        cold<WatchEvent>('a', { a: expiredEvent }), // at once
        cold<WatchEvent>('a', { a: expiredEvent }), // repeated: 800 ms
        cold<WatchEvent>('1s a 3m b', { a: ev('ADDED', obj('x', '6')), b: expiredEvent }), // healthy 3 min: at once
      );
      const r = start({}, 400_000);
      flush();
      expect(lw.listCalls).toHaveLength(4);
      const listStarts = statuses(r)
        .filter(([, s]) => s.listProgress?.pages === 0)
        .map(([t]) => t);
      expect(listStarts).toEqual([0, 0, 800, 181_801]);
      const delays = statuses(r)
        .filter(([, s]) => s.phase === 'backingOff')
        .map(([, s]) => s.backoffMs);
      expect(delays).toEqual([800]);
      expect(statuses(r).at(-1)?.[1]).toMatchObject({ phase: 'watching', relistCount: 3, hasSynced: true });
    });
  });
});

describe('reflector on Retry-After', () => {
  const retryAfterOf = (error: KubeApiError, options: ReflectorOptions = {}) => {
    let delay: number | undefined;
    let second: number | undefined;
    setup(({ lw, start, flush, ts }) => {
      lw.scriptList(
        throwError(() => error),
        defer(() => {
          second = ts.now();
          return of(page([], '1'));
        }),
      );
      const r = start(options, 100_000_000);
      flush();
      delay = statuses(r).find(([, s]) => s.phase === 'backingOff')?.[1].backoffMs;
    });
    return { delay, second };
  };

  it('should cap a huge Retry-After at the backoff cap', () => {
    expect(retryAfterOf(new KubeApiError(429, { retryAfterSeconds: 999_999_999 }))).toEqual({ delay: 30_000, second: 30_000 });
    expect(retryAfterOf(new KubeApiError(503, { retryAfterSeconds: 60 }), { backoff: { maxMs: 120_000 } })).toEqual({
      delay: 60_000,
      second: 60_000,
    });
  });

  it('should ignore a Retry-After of a Status body that is not a finite number >= 0', () => {
    for (const bad of [Number.NaN, Infinity, -5, '7']) {
      const status = { kind: 'Status' as const, code: 503, details: { retryAfterSeconds: bad as number } };
      expect(retryAfterOf(new KubeApiError(503, { status }))).toEqual({ delay: 800, second: 800 });
    }
  });
});
