import { describe, expect, it } from '@jest/globals';
import { deepFreeze } from './deepFreeze.ts';

describe('deepFreeze', () => {
  it('should freeze every object and array of a JSON document', () => {
    const doc = deepFreeze(JSON.parse('{"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}'));
    expect(Object.isFrozen(doc)).toBe(true);
    expect(Object.isFrozen(doc.metadata.labels)).toBe(true);
    expect(Object.isFrozen(doc.spec.containers)).toBe(true);
    expect(Object.isFrozen(doc.spec.containers[0].ports[0])).toBe(true);
    expect(() => { doc.metadata.labels.a = '2'; }).toThrow(TypeError);
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
