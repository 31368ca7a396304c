import { describe, expect, it } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { InvalidOptionsError } from '../errors.ts';
import type { Delta } from '../types.ts';
import { inNamespace } from './inNamespace.ts';
import { delta, obj } from '../../test/testDeltas.ts';

const run = (fn: Parameters<TestScheduler['run']>[0]): void => {
  new TestScheduler((a, b) => expect(a).toEqual(b)).run(fn);
};

describe('inNamespace', () => {
  it('should keep the deltas of the given namespaces, with "" for cluster-scoped objects', () =>
    run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', obj('one', 'a')),
        b: delta('Added', obj('two', 'b')),
        n: delta('Added', obj('', 'node-1')),
        t: delta('Deleted', obj('one', 'c'), { finalStateUnknown: true }),
      };
      expectObservable(cold('a-b-n-t|', values).pipe(inNamespace('one', ''))).toBe('a---n-t|', values);
      expectObservable(cold('a-b-n-t|', values).pipe(inNamespace('two'))).toBe('--b----|', values);
    }));

  it('should pass errors through', () =>
    run(({ cold, expectObservable }) => {
      expectObservable(cold<Delta>('--#').pipe(inNamespace('x'))).toBe('--#');
    }));

  it('should refuse no namespace or a non-string at the call', () => {
    expect(() => inNamespace(...([] as unknown as [string]))).toThrow(InvalidOptionsError);
    expect(() => inNamespace(undefined as unknown as string)).toThrow(InvalidOptionsError);
  });
});
