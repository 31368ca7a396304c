import { describe, expect, it } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { InvalidOptionsError } from '../errors.ts';
import type { Store } from '../types.ts';
import { selectFromStore } from './selectFromStore.ts';
import { mapStore, obj } from '../../test/testDeltas.ts';

const run = (fn: Parameters<TestScheduler['run']>[0]): void => {
  new TestScheduler((a, b) => expect(a).toEqual(b)).run(fn);
};
const web = obj('x', 'web', { app: 'web' });
const s1 = mapStore({ 'x/web': web });
const s2 = mapStore({ 'x/web': web, 'y/db': obj('y', 'db') });
const s3 = mapStore({ 'x/web': obj('x', 'web', { app: 'web', v: '2' }), 'y/db': obj('y', 'db') });
const stores = { a: s1, b: s2, c: s3 };

describe('selectFromStore', () => {
  it('should emit a derived value only when it changes', () =>
    run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c-a|', stores).pipe(selectFromStore((s) => s.size))).toBe('a-b---a|', { a: 1, b: 2 });
    }));

  it('should emit an object again only when the cache holds a different instance of it', () =>
    run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c|', stores).pipe(selectFromStore((s) => s.get('x/web')))).toBe('a---c|', { a: web, c: s3.get('x/web') });
    }));

  it('should compare with the given function', () =>
    run(({ cold, expectObservable }) => {
      const names = (s: Store) =>
        s
          .list()
          .map((o) => o.metadata!.name!)
          .sort();
      const sameList = (p: string[], c: string[]) => p.length === c.length && p.every((x, i) => x === c[i]);
      expectObservable(cold('a-b-c|', stores).pipe(selectFromStore(names, sameList))).toBe('a-b--|', { a: ['web'], b: ['db', 'web'] });
    }));

  it('should deliver an error of the projection as the stream error', () =>
    run(({ cold, expectObservable }) => {
      const project = (s: Store) => {
        if (s.size > 1) throw new Error('too many');
        return s.size;
      };
      expectObservable(cold('a-b|', stores).pipe(selectFromStore(project))).toBe('a-#', { a: 1 }, new Error('too many'));
    }));

  it('should refuse a missing projection at the call', () => {
    expect(() => selectFromStore(undefined as never)).toThrow(InvalidOptionsError);
    expect(() => selectFromStore((s) => s.size, 'eq' as never)).toThrow(InvalidOptionsError);
  });
});
