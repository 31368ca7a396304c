import { describe, expect, it } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { LabelSelectorError, parseLabelSelector } from '../labels/labelSelector.ts';
import { delta, obj } from '../../test/testDeltas.ts';
import { withLabels } from './withLabels.ts';
import { testScheduler } from '@rxinformer/testing';

const run = (fn: Parameters<TestScheduler['run']>[0]): void => {
  testScheduler().run(fn);
};
const web = obj('x', 'p', { app: 'web' });
const web2 = obj('x', 'p', { app: 'web', v: '2' });
const db = obj('x', 'p', { app: 'db' });
const bare = obj('x', 'p');

describe('withLabels', () => {
  it('should keep adds, deletes, tombstones and syncs of matching objects', () =>
    run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', web),
        b: delta('Added', db),
        c: delta('Added', bare),
        d: delta('Deleted', web),
        e: delta('Deleted', db),
        t: delta('Deleted', web, { finalStateUnknown: true }),
        s: delta('Sync', web, { oldObject: web }),
        z: delta('Sync', db, { oldObject: db }),
      };
      expectObservable(cold('abcdetsz|', values).pipe(withLabels('app=web'))).toBe('a--d-ts-|', values);
    }));

  it('should turn updates into and out of the selection into Added and Deleted, like a server-side selector', () =>
    run(({ cold, expectObservable }) => {
      const values = {
        i: delta('Updated', web, { oldObject: db }),
        u: delta('Updated', web2, { oldObject: web }),
        o: delta('Updated', db, { oldObject: web2 }),
        n: delta('Updated', bare, { oldObject: db }),
        r: delta('Replaced', web, { oldObject: web }),
        q: delta('Replaced', web, { oldObject: bare }),
      };
      expectObservable(cold('i-u-o-n-r-q|', values).pipe(withLabels('app in (web)'))).toBe('I-u-O---r-Q|', {
        I: delta('Added', web),
        u: values.u,
        O: delta('Deleted', db),
        r: values.r,
        Q: delta('Added', web),
      });
    }));

  it('should take a parsed selector or the structured form', () =>
    run(({ cold, expectObservable }) => {
      const values = { a: delta('Added', web), b: delta('Added', db), c: delta('Added', bare) };
      expectObservable(cold('abc|', values).pipe(withLabels(parseLabelSelector('app notin (db)')))).toBe('a-c|', values);
      expectObservable(
        cold('abc|', values).pipe(withLabels({ matchExpressions: [{ key: 'app', operator: 'Exists' }], matchLabels: { app: 'db' } })),
      ).toBe('-b-|', values);
      expectObservable(cold('abc|', values).pipe(withLabels(''))).toBe('abc|', values);
    }));

  it('should throw LabelSelectorError at the call for a bad selector of any form', () => {
    expect(() => withLabels('app in (web')).toThrow(LabelSelectorError);
    expect(() => withLabels([{ key: 'a b', operator: 'Exists', values: [] }])).toThrow(LabelSelectorError);
    expect(() => withLabels({ matchExpressions: [{ key: 'a', operator: 'Equals' }] })).toThrow(LabelSelectorError);
  });
});
