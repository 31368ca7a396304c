import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexerError, InvalidOptionsError } from '../errors.ts';
import { createStore } from './indexer.ts';
import { NAMESPACE_INDEX } from './keys.ts';
import type { KubeObject } from '../types.ts';
import { pod, type TestPod } from '@rxinformer/testing';

const byNode = (o: KubeObject) => [(o as TestPod).spec.nodeName ?? ''];

describe('StoreSnapshot', () => {
  it('should maintain the namespace index under add, update and delete', () => {
    const s0 = createStore();
    const s1 = s0
      .set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }))
      .set('a/y', pod('y', { namespace: 'a', uid: 'a-y', nodeName: 'n1' }))
      .set('b/z', pod('z', { namespace: 'b', uid: 'b-z', nodeName: 'n1' }));
    expect(s1.size).toBe(3);
    expect([...s1.indexKeys(NAMESPACE_INDEX, 'a')].sort()).toEqual(['a/x', 'a/y']);
    expect([...s1.listIndexValues(NAMESPACE_INDEX)].sort()).toEqual(['a', 'b']);
    const s2 = s1.delete('b/z');
    expect(s2.listIndexValues(NAMESPACE_INDEX)).toEqual(['a']);
    expect(s1.get('b/z')).toBeDefined(); // old snapshot untouched
    expect(s0.size).toBe(0);
    expect(s2.delete('nope')).toBe(s2);
  });

  it('should move an object between index values when it changes', () => {
    const s = createStore({ indexers: { byNode } }).set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }));
    const moved = s.set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n2' }));
    expect(moved.byIndex('byNode', 'n1')).toEqual([]);
    expect(moved.byIndex('byNode', 'n2').map((o) => o.metadata?.name)).toEqual(['x']);
    expect(moved.listIndexValues('byNode')).toEqual(['n2']);
    expect(moved.indexNames()).toEqual([NAMESPACE_INDEX, 'byNode']);
  });

  it('should index existing objects when an indexer is added', () => {
    const s = createStore()
      .set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }))
      .set('a/y', pod('y', { namespace: 'a', uid: 'a-y', nodeName: 'n2' }));
    const indexed = s.addIndexers({ byNode });
    expect(indexed.byIndex('byNode', 'n2').map((o) => o.metadata?.name)).toEqual(['y']);
    expect(() => s.byIndex('byNode', 'n1')).toThrow(IndexerError);
    expect(() => indexed.addIndexers({ byNode })).toThrow('already exists');
  });

  it('should refuse a throwing index function with a clear error and leave the store intact', () => {
    const s = createStore({
      indexers: {
        bad: (o) => {
          if (o.metadata?.name === 'boom') throw new Error('kaput');
          return ['ok'];
        },
      },
    }).set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }));
    expect(() => s.set('a/boom', pod('boom', { namespace: 'a', uid: 'a-boom', nodeName: 'n1' }))).toThrow(
      /index function "bad" threw for a\/boom: kaput/,
    );
    expect(s.size).toBe(1);
    expect(s.byIndex('bad', 'ok')).toHaveLength(1);
    expect(() =>
      createStore()
        .set('a/boom', pod('boom', { namespace: 'a', uid: 'a-boom', nodeName: 'n1' }))
        .addIndexers({
          bad: () => {
            throw new Error('x');
          },
        }),
    ).toThrow(IndexerError);
  });

  it('should treat index names that objects inherit (constructor, toString) as any other name', () => {
    const s = createStore().set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }));
    for (const name of ['nope', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(() => s.byIndex(name, 'v')).toThrow(IndexerError);
      expect(() => s.indexKeys(name, 'v')).toThrow(IndexerError);
      expect(() => s.listIndexValues(name)).toThrow(IndexerError);
    }
    const indexed = s.addIndexers({ toString: byNode, constructor: byNode });
    expect(indexed.byIndex('toString', 'n1')).toHaveLength(1);
    expect(indexed.indexKeys('constructor', 'n1')).toEqual(['a/x']);
    expect(() => s.addIndexers({ ['__proto__']: byNode })).toThrow(InvalidOptionsError);
    expect(() => createStore({ indexers: Object.fromEntries([['__proto__', byNode]]) })).toThrow(InvalidOptionsError);
  });

  it('should replace everything atomically and rebuild indexes', () => {
    const s = createStore({ indexers: { byNode } }).set('a/x', pod('x', { namespace: 'a', uid: 'a-x', nodeName: 'n1' }));
    const r = s.replaceAll([['b/y', pod('y', { namespace: 'b', uid: 'b-y', nodeName: 'n3' })]]);
    expect(r.keys()).toEqual(['b/y']);
    expect(r.listIndexValues('byNode')).toEqual(['n3']);
    expect(s.keys()).toEqual(['a/x']);
  });

  it('should keep every index equal to a brute-force recomputation', () => {
    const names = fc.constantFrom('p1', 'p2', 'p3', 'p4');
    const op = fc.record({ del: fc.boolean(), ns: fc.constantFrom('a', 'b'), name: names, node: fc.constantFrom('n1', 'n2', 'n3') });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (list) => {
        let s = createStore({ indexers: { byNode } });
        for (const o of list)
          s = o.del ? s.delete(`${o.ns}/${o.name}`) : s.set(`${o.ns}/${o.name}`, pod(o.name, { namespace: o.ns, nodeName: o.node }));
        for (const index of ['byNode', NAMESPACE_INDEX]) {
          const fn = index === 'byNode' ? byNode : (x: KubeObject) => [x.metadata?.namespace ?? ''];
          const expected = new Map<string, string[]>();
          for (const key of s.keys()) for (const v of fn(s.get(key)!)) expected.set(v, [...(expected.get(v) ?? []), key]);
          expect([...s.listIndexValues(index)].sort()).toEqual([...expected.keys()].sort());
          for (const [v, keys] of expected) expect([...s.indexKeys(index, v)].sort()).toEqual(keys.sort());
        }
      }),
      { numRuns: 200 },
    );
  });
});
