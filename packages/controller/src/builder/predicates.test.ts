import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';
import {
  and,
  annotationsChanged,
  checkPredicates,
  generationChanged,
  labelsChanged,
  not,
  or,
  passes,
  resourceVersionChanged,
  type Predicate,
} from './predicates.ts';

const obj = (rv: string, generation: number, labels?: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', resourceVersion: rv, generation, labels, annotations },
});

describe('predicates', () => {
  const base = obj('1', 1, { app: 'x' }, { note: 'n' });

  it('should judge updates by the part each compares, and let adds and deletes pass', () => {
    const cases: [Predicate, KubeObject, boolean][] = [
      [generationChanged, obj('2', 2, { app: 'x' }, { note: 'n' }), true],
      [generationChanged, obj('2', 1, { app: 'y' }, { note: 'n' }), false],
      [labelsChanged, obj('2', 1, { app: 'y' }, { note: 'n' }), true],
      [labelsChanged, obj('2', 2, { app: 'x' }, { note: 'n' }), false],
      [labelsChanged, obj('2', 1, {}, { note: 'n' }), true], // removed
      [annotationsChanged, obj('2', 1, { app: 'x' }, { note: 'm' }), true],
      [annotationsChanged, obj('2', 2, { app: 'y' }, { note: 'n' }), false],
      [resourceVersionChanged, obj('2', 1, { app: 'x' }, { note: 'n' }), true],
      [resourceVersionChanged, base, false], // a resync
    ];
    for (const [p, next, expected] of cases) {
      expect(passes([p], 'update', base, next)).toBe(expected);
      expect(passes([p], 'add', next)).toBe(true);
      expect(passes([p], 'delete', next)).toBe(true);
    }
    // An absent map equals an empty one.
    expect(passes([labelsChanged], 'update', obj('1', 1), obj('2', 1, {}))).toBe(false);
  });

  it("should combine per kind of event, with controller-runtime's not refusing what it negates everywhere", () => {
    const bumped = obj('2', 2, { app: 'x' }, { note: 'n' });
    const relabelled = obj('2', 1, { app: 'y' }, { note: 'n' });
    const either = or(generationChanged, labelsChanged);
    const both = and(generationChanged, labelsChanged);
    expect([passes([either], 'update', base, bumped), passes([either], 'update', base, relabelled)]).toEqual([true, true]);
    expect(passes([either], 'update', base, obj('2', 1, { app: 'x' }, { note: 'm' }))).toBe(false);
    expect([passes([both], 'update', base, bumped), passes([both], 'update', base, obj('2', 2, { app: 'y' }))]).toEqual([false, true]);
    const notBumped = not(generationChanged);
    expect([passes([notBumped], 'update', base, relabelled), passes([notBumped], 'update', base, bumped)]).toEqual([true, false]);
    expect([passes([notBumped], 'add', base), passes([notBumped], 'delete', base)]).toEqual([false, false]);
    expect([passes([or()], 'add', base), passes([and()], 'add', base)]).toEqual([false, true]);
    const onlyAdds: Predicate = { add: (o) => o.metadata?.name === 'a', update: () => false };
    expect([passes([onlyAdds, labelsChanged], 'add', base), passes([onlyAdds, labelsChanged], 'update', base, relabelled)]).toEqual([
      true,
      false,
    ]);
  });

  it('should refuse what is not a predicate', () => {
    expect(() => checkPredicates([{ update: 5 } as never], 'owns')).toThrow(InvalidOptionsError);
    expect(() => and(null as never)).toThrow(InvalidOptionsError);
    expect(() => checkPredicates('x' as never, 'owns')).toThrow(InvalidOptionsError);
  });
});
