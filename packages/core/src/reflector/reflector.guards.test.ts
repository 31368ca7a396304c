/**
 * The reflector against servers that misbehave: 410 to everything, huge or malformed Retry-After,
 * continue tokens forever, objects of another kind. Virtual time throughout.
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, Observable, defer, of, throwError } from 'rxjs';
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import { reflector } from './reflector.ts';
import { UnexpectedTypeError } from '../expectedType.ts';
import { ListTooLargeError } from './reflectorErrors.ts';
import type { ReflectorOptions } from './reflectorOptions.ts';
import type { KubeObject, ListOptions, ListerWatcher, ListPage, ReflectorStatus, WatchEvent } from '../types.ts';
import { page, testObject as obj, testScheduler, PAGED } from '@rxinformer/testing';
import { data, ev, setup, statuses } from '../../test/reflectorHarness.ts';

const expired = () => new KubeApiError(410, { reason: 'Expired', message: 'too old resource version' });
const expiredEvent = ev('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });

/**
 * Runs a reflector for `ms` of virtual time over a ListerWatcher whose list and watch answer with
 * `list()` / `watch()` at every call, and returns the virtual times and options of the lists and
 * the statuses. A hot loop is cut after 1000 calls (the source then hangs), so a regression fails
 * instead of hanging.
 */
function runGuarded(
  answers: { list: (o: ListOptions) => Observable<ListPage>; watch: () => Observable<WatchEvent> },
  ms: number,
  options: ReflectorOptions = {},
) {
  const lists: { at: number; options: ListOptions }[] = [];
  const statuses: ReflectorStatus[] = [];
  const ts = testScheduler();
  ts.run(({ flush }) => {
    let calls = 0;
    const guard = <T>(make: () => Observable<T>) => defer(() => (++calls > 1000 ? NEVER : make()));
    const lw: ListerWatcher = {
      list: (o) => {
        lists.push({ at: ts.now(), options: o });
        return guard(() => answers.list(o));
      },
      watch: () => guard(answers.watch),
      watchList: true,
    };
    // No stall check: its lists would count as relists here; and paged lists, which these cases count.
    const sub = reflector(lw, { scheduler: ts, random: () => 0, stallCheck: false, ...PAGED, ...options }).subscribe((e) => {
      if (e.type === 'STATUS') statuses.push(e.status);
    });
    ts.schedule(() => sub.unsubscribe(), ms);
    flush();
  });
  return { lists, statuses };
}

/** The virtual times of the lists `runGuarded` saw. */
const countLists = (...args: Parameters<typeof runGuarded>): number[] => runGuarded(...args).lists.map((l) => l.at);

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
      const r = start(PAGED, 400_000);
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
      expect(statuses(r).at(-1)?.[1]).toMatchObject({ phase: 'connecting', relistCount: 3, hasSynced: true });
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
      const r = start({ ...PAGED, ...options }, 100_000_000);
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

describe('reflector on lists that never end', () => {
  // Every page has a continue token: `perPage` objects, numbered on.
  const endless = (perPage: number) => {
    let n = 0;
    return (o: ListOptions) =>
      of(
        page(
          Array.from({ length: perPage }, () => obj(`p${n++}`, '1')),
          '5',
          `tok${o.continue ?? ''}x`,
        ),
      );
  };
  const tooLarge = (statuses: ReflectorStatus[]) => statuses.find((st) => st.lastError instanceof ListTooLargeError);

  it('should stop following continue tokens at maxListPages, then back off and relist from scratch', () => {
    const { lists, statuses } = runGuarded({ list: endless(1), watch: () => NEVER }, 1000, { maxListPages: 3 });
    expect(lists.map((l) => [l.at, l.options.continue])).toEqual([
      [0, undefined],
      [0, 'tokx'],
      [0, 'toktokxx'],
      [800, undefined], // after the backoff: from scratch
      [800, 'tokx'],
      [800, 'toktokxx'],
    ]);
    const failed = tooLarge(statuses);
    expect(failed).toMatchObject({ phase: 'backingOff', backoffMs: 800, hasSynced: false });
    expect(failed?.lastError).toMatchObject({ reason: 'ListTooLarge', limit: 'maxListPages', pages: 3, items: 3 });
    expect(statuses.some((st) => st.hasSynced)).toBe(false);
  });

  it('should stop a list past maxListItems, also on its last page, and accept one at the bounds', () => {
    const many = runGuarded({ list: endless(2), watch: () => NEVER }, 100, { maxListItems: 5 });
    expect(many.lists).toHaveLength(3);
    expect(tooLarge(many.statuses)?.lastError).toMatchObject({ limit: 'maxListItems', pages: 3, items: 6 });

    const last = runGuarded({ list: () => of(page([obj('a', '1'), obj('b', '1')], '5')), watch: () => NEVER }, 100, { maxListItems: 1 });
    expect(tooLarge(last.statuses)?.lastError).toMatchObject({ limit: 'maxListItems', pages: 1, items: 2 });

    // Exactly maxListPages pages and maxListItems objects: a good list.
    const pages = [page([obj('a', '1')], '5', 't1'), page([obj('b', '1')], '5', 't2'), page([obj('c', '1')], '5')];
    const exact = runGuarded({ list: () => of(pages.shift()!), watch: () => NEVER }, 100, { maxListPages: 3, maxListItems: 3 });
    expect(exact.statuses.at(-1)).toMatchObject({ phase: 'connecting', hasSynced: true });
    expect(tooLarge(exact.statuses)).toBeUndefined();
  });

  it('should stop a streaming list past maxListItems and drop what it held', () => {
    setup(({ lw, start, flush, cold }) => {
      const adds = Object.fromEntries(['a', 'b', 'c', 'd'].map((k, i) => [k, ev('ADDED', obj(`p${i}`, '1'))]));
      lw.scriptWatch(cold<WatchEvent>('abcd', adds));
      const r = start({ useStreamingList: true, maxListItems: 3 }, 500);
      flush();
      expect(r.events.some(([, e]) => e.type === 'LIST')).toBe(false);
      const failed = statuses(r).find(([, st]) => st.lastError instanceof ListTooLargeError);
      expect(failed?.[0]).toBe(3);
      expect(failed?.[1].lastError).toMatchObject({ limit: 'maxListItems', pages: 0, items: 4 });
    });
  });

  it('should throw InvalidOptionsError for a bound that is not a positive integer', () => {
    const lw: ListerWatcher = { list: () => NEVER, watch: () => NEVER };
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '10' as unknown as number]) {
      expect(() => reflector(lw, { maxListPages: bad })).toThrow(InvalidOptionsError);
      expect(() => reflector(lw, { maxListItems: bad })).toThrow(InvalidOptionsError);
    }
  });
});

describe('reflector with an expected type', () => {
  const pods: ReflectorOptions = { expectedType: { apiVersion: 'v1', kind: 'Pod' } };
  const cm = (name: string, rv: string) => ({ ...obj(name, rv), kind: 'ConfigMap' });
  const bare = (name: string, rv: string) => ({ metadata: obj(name, rv).metadata }); // no apiVersion, no kind
  const skipped = (r: Parameters<typeof statuses>[0]) =>
    statuses(r)
      .map(([t, st]) => [t, st.lastError] as const)
      .filter(([, e]) => e instanceof UnexpectedTypeError) as [number, UnexpectedTypeError][];

  it('should skip and report watch events of another kind or apiVersion, without taking their resource version', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')));
      lw.scriptWatch(
        cold<WatchEvent>('a b c d e f|', {
          a: ev('ADDED', obj('x', '2')),
          b: ev('ADDED', cm('cm', '9')),
          c: ev('MODIFIED', { ...obj('x', '10'), apiVersion: 'example.com/v1' }),
          d: ev('DELETED', cm('cm', '11')),
          e: ev('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '12' } }),
          f: ev('ADDED', bare('y', '3')),
        }),
        NEVER,
      );
      const r = start({ ...PAGED, ...pods });
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@1:'],
        [0, 'ADDED:x'],
        [5, 'ADDED:y'],
      ]);
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '3']); // not 9, 10, 11 or 12
      expect(skipped(r).map(([t, e]) => [t, e.count, (e.object as KubeObject).kind, e.reason])).toEqual([
        [1, 1, 'ConfigMap', 'UnexpectedType'],
        [2, 1, 'Pod', 'UnexpectedType'],
        [3, 1, 'ConfigMap', 'UnexpectedType'],
        [4, 1, 'ConfigMap', 'UnexpectedType'],
      ]);
      expect(skipped(r)[0][1].message).toBe('object of type v1 ConfigMap default/cm skipped: expected v1 Pod');
      expect(statuses(r).at(-1)?.[1].lastError).toBeUndefined(); // cleared by the good event after
    });
  });

  it('should skip list items of another kind across pages and report them on the status after the list', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([obj('a', '1'), cm('cm1', '2')], '5', 'tok')), of(page([cm('cm2', '3'), bare('b', '4')], '5')));
      const r = start({ ...PAGED, ...pods });
      flush();
      expect(data(r)).toEqual([[0, 'LIST@5:a,b']]);
      const after = statuses(r).find(([, st]) => st.hasSynced)?.[1];
      expect(after?.lastError).toBeInstanceOf(UnexpectedTypeError);
      expect(after?.lastError).toMatchObject({ count: 2, object: cm('cm1', '2') });
      expect(after?.lastError?.message).toBe('2 objects of another type skipped (the first: v1 ConfigMap default/cm1): expected v1 Pod');
      expect(after?.listProgress).toBeUndefined();
      expect(statuses(r).filter(([, st]) => st.listProgress?.pages === 1)[0][1].listProgress).toEqual({ pages: 1, items: 2 });
    });
  });

  it('should skip streamed objects of another kind and report them with the list', () => {
    setup(({ lw, start, flush, cold }) => {
      const end = { kind: 'Pod', metadata: { resourceVersion: '50', annotations: { 'k8s.io/initial-events-end': 'true' } } };
      lw.scriptWatch(cold('a b c', { a: ev('ADDED', obj('p', '10')), b: ev('ADDED', cm('cm', '11')), c: ev('BOOKMARK', end) }));
      const r = start({ ...pods, useStreamingList: true });
      flush();
      expect(data(r)).toEqual([[2, 'LIST@50:p']]);
      expect(statuses(r).at(-1)?.[1].lastError).toMatchObject({ count: 1, object: cm('cm', '11') });
    });
  });

  it('should accept every type without the option, and check only the fields it sets', () => {
    setup(({ lw, start, flush }) => {
      lw.scriptList(of(page([obj('a', '1'), cm('cm', '2')], '5')), of(page([obj('a', '1'), cm('cm', '2')], '5')));
      const all = start(PAGED);
      const kindOnly = start({ ...PAGED, expectedType: { kind: 'ConfigMap' } });
      flush();
      expect(data(all)).toEqual([[0, 'LIST@5:a,cm']]);
      expect(data(kindOnly)).toEqual([[0, 'LIST@5:cm']]);
    });
  });

  it('should throw InvalidOptionsError for an expected type that is not an object of non-empty strings', () => {
    const lw: ListerWatcher = { list: () => NEVER, watch: () => NEVER };
    for (const bad of [null, 'Pod', 5, { kind: '' }, { kind: 5 }, { apiVersion: null }])
      expect(() => reflector(lw, { expectedType: bad as never })).toThrow(InvalidOptionsError);
  });
});
