import { describe, expect, it } from '@jest/globals';
import { testObject } from '@rxinformer/testing';
import type { KubeObject, WatchEvent } from '../types.ts';
import { parseRevision, WatchHistory, type Placement } from './watchHistory.ts';

const added = (name: string, rv: number): WatchEvent => ({ type: 'ADDED', object: testObject(name, String(rv)) });
const shown = (p: Placement) =>
  p.type === 'replay' ? p.events.map((e) => `${(e.object as KubeObject).metadata?.name}@${e.object.metadata?.resourceVersion}`) : p.type;

describe('parseRevision', () => {
  it('should read etcd revisions only', () => {
    expect(['0', '7', '18446744073709551615', '007', '-1', '1e3', ' 1', '', 'abc'].map((rv) => parseRevision(rv))).toEqual([
      0n,
      7n,
      18446744073709551615n,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(parseRevision(undefined)).toBeUndefined();
  });
});

describe('WatchHistory', () => {
  it('should place a revision among its events, expire those it dropped, and defer those ahead', () => {
    const h = new WatchHistory(3);
    h.begin(10n);
    for (const [name, rv] of [
      ['a', 11],
      ['b', 12],
      ['c', 14],
      ['d', 15],
    ] as const)
      h.append(BigInt(rv), added(name, rv));
    // a@11 was dropped: every event after 11 is held, none after 10.
    expect([10n, 11n, 12n, 13n, 15n, 16n].map((rv) => shown(h.place(rv)))).toEqual([
      'expired',
      ['b@12', 'c@14', 'd@15'],
      ['c@14', 'd@15'],
      ['c@14', 'd@15'],
      [],
      'future',
    ]);
    h.advance(20n); // a bookmark of the informer's own watch
    expect([shown(h.place(20n)), h.head]).toEqual([[], 20n]);
  });

  it('should mark the gap of a relist, with or without differences, and keep the order of revisions', () => {
    const h = new WatchHistory(100);
    h.begin(10n);
    h.append(11n, added('a', 11));
    h.relisted(11n, 20n, []); // nothing differed, but what happened between 11 and 20 is unknown
    h.relisted(20n, 30n, [added('b', 25)]);
    expect([11n, 15n, 20n, 25n, 30n].map((rv) => shown(h.place(rv)))).toEqual([['b@25'], 'expired', ['b@25'], 'expired', []]);
    h.append(29n, added('c', 29)); // older than the head: held at the head, after what came before
    expect(shown(h.place(30n))).toEqual([]);
    expect(shown(h.place(20n))).toEqual(['b@25', 'c@29']);
  });

  it('should start again from a new beginning', () => {
    const h = new WatchHistory(10);
    h.begin(5n);
    h.append(6n, added('a', 6));
    h.begin(8n);
    expect([shown(h.place(5n)), shown(h.place(8n))]).toEqual(['expired', []]);
  });

  it('should keep the events of the last ageMs, and the newest minKept of older ones, under its capacity', () => {
    let clock = 0;
    const h = new WatchHistory(100, { ageMs: 1000, now: () => clock, minKept: 2 });
    h.begin(10n);
    for (const rv of [11, 12, 13]) h.append(BigInt(rv), added(`p${rv}`, rv));
    clock = 600;
    h.append(14n, added('p14', 14));
    clock = 999; // 11–13 are 999 ms old: still kept
    expect(shown(h.place(10n))).toEqual(['p11@11', 'p12@12', 'p13@13', 'p14@14']);
    clock = 1000; // ageMs old: dropped, but for the newest two
    expect([shown(h.place(11n)), shown(h.place(12n))]).toEqual(['expired', ['p13@13', 'p14@14']]);
    clock = 5000; // all old: the newest two stay
    expect([shown(h.place(11n)), shown(h.place(12n))]).toEqual(['expired', ['p13@13', 'p14@14']]);
    h.append(15n, added('p15', 15));
    expect([shown(h.place(12n)), shown(h.place(13n))]).toEqual(['expired', ['p14@14', 'p15@15']]);
  });
});
