import { describe, expect, it } from '@jest/globals';
import { EMPTY, NEVER } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { InvalidOptionsError } from '../errors.ts';
import type { Delta, DeltaType } from '../types.ts';
import { ofType } from './ofType.ts';
import { delta, obj } from '../../test/testDeltas.ts';

const run = (fn: Parameters<TestScheduler['run']>[0]): void => {
  new TestScheduler((a, b) => expect(a).toEqual(b)).run(fn);
};
const p = obj('x', 'p');
const values = {
  a: delta('Added', p),
  u: delta('Updated', p, { oldObject: p }),
  d: delta('Deleted', p),
  r: delta('Replaced', p, { oldObject: p }),
  s: delta('Sync', p, { oldObject: p }),
};

describe('ofType', () => {
  it('should keep only the given delta types, in order', () =>
    run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-u-d-r-s|', values);
      expectObservable(source.pipe(ofType('Added', 'Deleted'))).toBe('a---d----|', values);
      expectObservable(source.pipe(ofType('Updated', 'Replaced', 'Sync'))).toBe('--u---r-s|', values);
      expectSubscriptions(source.subscriptions).toBe(['^--------!', '^--------!']);
    }));

  it('should pass errors and completion through, and unsubscribe early', () =>
    run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-#', values);
      expectObservable(source.pipe(ofType('Deleted'))).toBe('--#');
      const long = cold('a-d-d', values);
      expectObservable(long.pipe(ofType('Deleted')), '^--!').toBe('--d', values);
      expectSubscriptions(long.subscriptions).toBe('^--!');
      expectObservable(EMPTY.pipe(ofType('Added'))).toBe('|');
      expectObservable(NEVER.pipe(ofType('Added'))).toBe('');
    }));

  it('should narrow the delta type', () => {
    const seen: 'Deleted'[] = [];
    const s = ofType('Deleted');
    // compile-time check: the output's type is exactly 'Deleted'
    s(NEVER as never as import('rxjs').Observable<Delta>).subscribe((d) => seen.push(d.type));
    expect(seen).toEqual([]);
  });

  it('should refuse no type or an unknown one at the call', () => {
    expect(() => ofType(...([] as unknown as [DeltaType]))).toThrow(InvalidOptionsError);
    expect(() => ofType('Modified' as DeltaType)).toThrow(/unknown delta type "Modified"/);
  });
});
