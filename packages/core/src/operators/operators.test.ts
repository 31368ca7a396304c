import { describe, expect, it } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { createStore } from '../indexer.ts';
import type { Delta, KubeObject } from '../types.ts';
import { LabelSelectorError } from '../labelSelector.ts';
import { inNamespace } from './inNamespace.ts';
import { ofType } from './ofType.ts';
import { selectFromStore } from './selectFromStore.ts';
import { withLabels } from './withLabels.ts';

const store = createStore();
const o = (ns: string, name: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { namespace: ns, name, labels } });
const d = (type: Delta['type'], object: KubeObject, oldObject?: KubeObject): Delta => ({ type, key: `${object.metadata?.namespace}/${object.metadata?.name}`, object, oldObject, store });
const run = (fn: (h: { cold: TestScheduler['createColdObservable']; expectObservable: TestScheduler['expectObservable'] }) => void): void => {
  new TestScheduler((a, b) => expect(a).toEqual(b)).run(fn as never);
};

describe('ofType', () => {
  it('should keep only the given delta types', () => run(({ cold, expectObservable }) => {
    const values = { a: d('Added', o('x', 'a')), u: d('Updated', o('x', 'a')), r: d('Deleted', o('x', 'a')) };
    expectObservable(cold('a-u-r|', values).pipe(ofType('Added', 'Deleted'))).toBe('a---r|', values);
  }));
});

describe('inNamespace', () => {
  it('should keep the deltas of the given namespaces', () => run(({ cold, expectObservable }) => {
    const values = { a: d('Added', o('one', 'a')), b: d('Added', o('two', 'b')), c: d('Added', { metadata: { name: 'node' } }) };
    expectObservable(cold('a-b-c|', values).pipe(inNamespace('one', ''))).toBe('a---c|', values);
  }));
});

describe('withLabels', () => {
  it('should filter by selector and turn selection transitions into adds and deletes', () => run(({ cold, expectObservable }) => {
    const web = o('x', 'p', { app: 'web' });
    const db = o('x', 'p', { app: 'db' });
    const values = { a: d('Added', web), b: d('Added', db), i: d('Updated', web, db), u: d('Updated', web, web), x: d('Updated', db, web), n: d('Updated', db, db) };
    expectObservable(cold('a-b-i-u-x-n|', values).pipe(withLabels('app in (web)'))).toBe('a---I-u-X--|', {
      a: values.a, u: values.u, I: { ...values.i, type: 'Added', oldObject: undefined }, X: { ...values.x, type: 'Deleted', oldObject: undefined },
    });
  }));

  it('should throw LabelSelectorError at the call for a bad selector', () => {
    expect(() => withLabels('app in (web')).toThrow(LabelSelectorError);
  });
});

describe('selectFromStore', () => {
  it('should emit a derived value only when it changes', () => run(({ cold, expectObservable }) => {
    const s1 = createStore().set('x/a', o('x', 'a'));
    const s2 = s1.set('x/a', o('x', 'a', { v: '2' }));
    const s3 = s2.set('x/b', o('x', 'b'));
    expectObservable(cold('a-b-c|', { a: s1, b: s2, c: s3 }).pipe(selectFromStore((s) => s.size))).toBe('a---c|', { a: 1, c: 2 });
  }));
});
