import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { everyObjectFrozen, nested, nestedJson, nestedLeaf } from '../../test/nested.ts';
import { deepFreeze, freezeReusing, MAX_SHARE_DEPTH } from './deepFreeze.ts';

describe('deepFreeze', () => {
  it('should freeze every object and array of a JSON document', () => {
    const doc = deepFreeze(
      JSON.parse('{"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}'),
    );
    expect(Object.isFrozen(doc)).toBe(true);
    expect(Object.isFrozen(doc.metadata.labels)).toBe(true);
    expect(Object.isFrozen(doc.spec.containers)).toBe(true);
    expect(Object.isFrozen(doc.spec.containers[0].ports[0])).toBe(true);
    expect(() => {
      doc.metadata.labels.a = '2';
    }).toThrow(TypeError);
  });

  it('should leave primitives and frozen subtrees alone, and freeze Maps the immer way', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
    const shared = Object.freeze({ inner: { x: 1 } }); // trusted: frozen means deeply frozen
    deepFreeze({ shared });
    expect(Object.isFrozen(shared.inner)).toBe(false);
    const withMap = deepFreeze({ m: new Map([['k', { v: 1 }]]) });
    expect(() => withMap.m.set('k2', { v: 2 })).toThrow();
    expect(Object.isFrozen(withMap.m.get('k'))).toBe(true);
  });
});

const isDeeplyFrozen = (v: unknown): boolean =>
  typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(isDeeplyFrozen));

/** Every node of `v` reachable from its root, by identity. */
const nodes = (v: unknown, out = new Set<unknown>()): Set<unknown> => {
  if (typeof v === 'object' && v !== null) {
    out.add(v);
    for (const child of Object.values(v)) nodes(child, out);
  }
  return out;
};

/** Deep equality of JSON values, whatever the order of keys (the sharing's own notion of equal). */
const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const rb = b as Record<string, unknown>;
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], rb[k]));
};

/** Asserts that every object of `result` deep-equal to the one at the same path of `previous` is that instance. */
const expectSharedWhereEqual = (result: unknown, previous: unknown): void => {
  if (typeof result !== 'object' || result === null || typeof previous !== 'object' || previous === null || result === previous) return;
  if (Array.isArray(result) !== Array.isArray(previous)) return;
  if (jsonEqual(result, previous)) {
    expect(result).toBe(previous);
    return;
  }
  const r = result as Record<string, unknown>;
  const p = previous as Record<string, unknown>;
  for (const k of Object.keys(r)) if (k !== '__proto__' && Object.hasOwn(p, k)) expectSharedWhereEqual(r[k], p[k]);
};

describe('freezeReusing', () => {
  const podWithStatus = (phase: string, restarts: number) =>
    JSON.parse(
      JSON.stringify({
        metadata: { name: 'web', labels: { app: 'web' }, managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': {} } }] },
        spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] },
        status: { phase, containerStatuses: [{ name: 'c', restartCount: restarts }] },
      }),
    );

  it('should keep the previous instance of every unchanged subtree and freeze the changed ones', () => {
    const previous = deepFreeze(podWithStatus('Running', 0));
    const next = freezeReusing(podWithStatus('Running', 1), previous);
    expect(next).toEqual(podWithStatus('Running', 1));
    expect(next.spec).toBe(previous.spec);
    expect(next.metadata).toBe(previous.metadata);
    expect(next.status).not.toBe(previous.status);
    expect(next.status.containerStatuses[0]).not.toBe(previous.status.containerStatuses[0]);
    expect(isDeeplyFrozen(next)).toBe(true);
    expect(previous).toEqual(podWithStatus('Running', 0));
  });

  it('should return the previous object itself when nothing changed', () => {
    const previous = deepFreeze(podWithStatus('Running', 0));
    expect(freezeReusing(podWithStatus('Running', 0), previous)).toBe(previous);
  });

  it('should not share when keys were added or removed, and never through __proto__', () => {
    const previous = deepFreeze({ a: { x: 1 }, b: { y: 2, z: 3 } });
    const next = freezeReusing({ a: { x: 1 }, b: { y: 2 } }, previous);
    expect(next.a).toBe(previous.a);
    expect(next.b).toEqual({ y: 2 });
    const withProto = freezeReusing(JSON.parse('{"__proto__":{"p":1}}'), deepFreeze(JSON.parse('{"__proto__":{"p":1}}')));
    expect(Object.getPrototypeOf(withProto)).toBe(Object.prototype);
    expect(Object.keys(withProto)).toEqual(['__proto__']);
  });

  it('should never share non-plain values (immer decides whether to freeze them)', () => {
    const date = new Date(0);
    const previous = deepFreeze({ when: date, list: [1, 2] });
    const next = freezeReusing({ when: new Date(0), list: [1, 2, 3] }, previous);
    expect(next.when).not.toBe(date);
    expect(next.list).toEqual([1, 2, 3]);
    expect(Object.isFrozen(next.list)).toBe(true);
    // An empty plain object is not "equal" to an empty Map, array or class instance it replaces.
    for (const other of [new Map(), [], new (class Empty {})()]) {
      const fresh = {};
      expect(freezeReusing({ v: fresh }, deepFreeze({ v: other })).v).toBe(fresh);
    }
  });

  it('should give a deeply frozen document equal to the fresh one, sharing only equal subtrees, whatever the two documents', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        const previous = deepFreeze(JSON.parse(JSON.stringify(a)));
        const text = JSON.stringify(b);
        const result = freezeReusing(JSON.parse(text), previous);
        expect(JSON.stringify(result)).toBe(text === undefined ? undefined : JSON.stringify(JSON.parse(text)));
        expect(isDeeplyFrozen(result)).toBe(true);
        expect(JSON.stringify(previous)).toBe(JSON.stringify(a));
        // A node shared with the previous document holds the same content in both.
        const old = nodes(previous);
        for (const node of nodes(result)) if (old.has(node)) expect(isDeeplyFrozen(node)).toBe(true);
        expectSharedWhereEqual(result, previous);
      }),
      { numRuns: 300 },
    );
  });

  it('should share every equal subtree at the same path, before and after the first difference', () => {
    const previous = deepFreeze(JSON.parse('{"a":{"x":[1]},"b":{"y":2},"c":1,"d":{"z":[3]},"e":[{"p":1},{"q":2},{"r":3}]}'));
    const next = freezeReusing(JSON.parse('{"a":{"x":[1]},"b":{"y":2},"c":2,"d":{"z":[3]},"e":[{"p":1},{"q":9},{"r":3}]}'), previous);
    expect([next.a, next.b, next.d, next.e[0], next.e[2]]).toEqual([previous.a, previous.b, previous.d, previous.e[0], previous.e[2]]);
    for (const k of ['a', 'b', 'd'] as const) expect(next[k]).toBe(previous[k]);
    expect(next.e[0]).toBe(previous.e[0]);
    expect(next.e[2]).toBe(previous.e[2]);
    expect(next.e[1]).not.toBe(previous.e[1]);
    // Equal so far, then the previous object has one more key: the fresh one is kept, sharing all it can.
    const fewer = freezeReusing(JSON.parse('{"a":{"x":[1]},"b":{"y":2}}'), deepFreeze(JSON.parse('{"a":{"x":[1]},"b":{"y":2},"c":1}')));
    expect(Object.keys(fewer)).toEqual(['a', 'b']);
    expect(Object.isFrozen(fewer.a) && Object.isFrozen(fewer.b)).toBe(true);
  });
});

describe('deepFreeze and freezeReusing on documents nested deeper than the call stack', () => {
  it('should freeze a document nested 3,000 and 100,000 deep, and one with a cycle', () => {
    for (const depth of [3_000, 100_000]) {
      const doc = deepFreeze(nested(depth, 'x'));
      expect(everyObjectFrozen(doc)).toBe(true);
      expect(nestedLeaf(doc)).toBe('x');
      const parsed = deepFreeze(JSON.parse(nestedJson(depth, '"z"')));
      expect(everyObjectFrozen(parsed)).toBe(true);
      expect(nestedLeaf(parsed)).toBe('z');
    }
    const cyclic: Record<string, unknown> = { a: { b: [] as unknown[] } };
    ((cyclic.a as { b: unknown[] }).b as unknown[]).push(cyclic);
    expect(everyObjectFrozen(deepFreeze(cyclic))).toBe(true);
    const cyclicToo: Record<string, unknown> = { a: { b: [] as unknown[] } };
    ((cyclicToo.a as { b: unknown[] }).b as unknown[]).push(cyclicToo);
    expect(everyObjectFrozen(freezeReusing(cyclicToo, deepFreeze({ a: { b: [{ a: 1 }] } })))).toBe(true);
  });

  it('should share what is equal down to MAX_SHARE_DEPTH and freeze the rest as it is, however deep', () => {
    for (const depth of [3_000, 100_000]) {
      const previous = deepFreeze({ top: { same: 1 }, deep: nested(depth, 'x') });
      const equal = freezeReusing({ top: { same: 1 }, deep: nested(depth, 'x') }, previous);
      expect(equal.top).toBe(previous.top);
      expect(everyObjectFrozen(equal)).toBe(true);
      const changed = freezeReusing({ top: { same: 1 }, deep: nested(depth, 'changed') }, previous);
      expect(changed.top).toBe(previous.top);
      expect(nestedLeaf(changed.deep)).toBe('changed');
      expect(everyObjectFrozen(changed)).toBe(true);
      expect(nestedLeaf(previous.deep)).toBe('x');
    }
    // Objects down to depth MAX_SHARE_DEPTH (the root is at 0) are compared and shared as usual.
    const atLimit = deepFreeze({ deep: nested(MAX_SHARE_DEPTH - 1, { x: 1 }), other: 1 });
    expect(freezeReusing({ deep: nested(MAX_SHARE_DEPTH - 1, { x: 1 }), other: 2 }, atLimit).deep).toBe(atLimit.deep);
    const pastLimit = deepFreeze({ deep: nested(MAX_SHARE_DEPTH, { x: 1 }), other: 1 });
    expect(freezeReusing({ deep: nested(MAX_SHARE_DEPTH, { x: 1 }), other: 2 }, pastLimit).deep).not.toBe(pastLimit.deep);
  });
});
