import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidObjectError, InvalidOptionsError } from '../errors.ts';
import { deepFreeze } from '../store/deepFreeze.ts';
import { parseFieldPath, FieldPathError, type FieldPathStep } from './fieldPath.ts';
import { INFORMER_FIELDS, project } from './project.ts';

type Pod = ReturnType<typeof pod>;
const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { 'app.kubernetes.io/name': 'web', tier: 'front' },
    annotations: { big: 'x'.repeat(1000) },
    ownerReferences: [{ kind: 'ReplicaSet', name: 'web-1', uid: 'r1' }],
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: {
    nodeName: 'n1',
    containers: [
      { name: 'a', image: 'nginx', env: [{ name: 'X', value: '1' }] },
      { name: 'b', image: 'busybox' },
    ],
  },
  status: {
    phase: 'Running',
    containerStatuses: [{ name: 'a', restartCount: 2, state: { running: { startedAt: 't' } } }, { name: 'b' }],
  },
});

describe('project', () => {
  it('should keep the paths asked for and the informer fields, nothing else', () => {
    const p = project(['status.phase', 'spec.nodeName', 'status.containerStatuses[*].restartCount', 'spec.containers[*].image']);
    expect(p(pod())).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { 'app.kubernetes.io/name': 'web', tier: 'front' },
        ownerReferences: [{ kind: 'ReplicaSet', name: 'web-1', uid: 'r1' }],
      },
      spec: { nodeName: 'n1', containers: [{ image: 'nginx' }, { image: 'busybox' }] },
      status: { phase: 'Running', containerStatuses: [{ restartCount: 2 }, {}] },
    });
  });

  it('should keep a label whose key holds dots, escaped, and share the kept values with the object', () => {
    const source = pod();
    const p = project(['metadata.annotations.big', 'spec.containers']);
    const out = p(source) as ReturnType<typeof pod>;
    expect(out.metadata.annotations).toEqual({ big: source.metadata.annotations.big });
    expect(out.spec.containers).toBe(source.spec.containers); // kept whole, not copied
    expect(project<Pod>(['metadata.labels.app\\.kubernetes\\.io/name'])(source).metadata?.labels).toBe(source.metadata.labels); // labels kept whole anyway
  });

  it('should leave out objects with nothing kept, keep array positions, and keep nothing at a value of another shape', () => {
    const p = project<Pod>([
      'status.nope',
      'spec.containers[*].env[*].value',
      'spec.nodeName.x',
      'status.phase[*]',
      'spec.containers.name',
    ]);
    const out = p(pod());
    expect(out).not.toHaveProperty('status');
    expect(out.spec).toEqual({ containers: [{ env: [{ value: '1' }] }, {}] });
    expect(project(['a[*].b'])({ a: [1, 'x', null, [2], { b: 3 }, {}] } as never)).toMatchObject({
      a: [null, null, null, null, { b: 3 }, {}],
    });
  });

  it('should keep a value whole when one path names it and another a field under it', () => {
    const source = pod();
    expect(project<Pod>(['spec.containers[*].name', 'spec'])(source).spec).toBe(source.spec);
    expect(project<Pod>(['spec', 'spec.containers[*].name'])(source).spec).toBe(source.spec);
  });

  it('should leave the object alone: frozen objects are fine and never changed', () => {
    const source = deepFreeze(pod());
    const out = project<Pod>(['status', 'spec.containers[*].name'])(source);
    expect(out.status).toBe(source.status);
    expect(Object.isFrozen(out)).toBe(false); // the prepare stage freezes it
  });

  it('should not be fooled by __proto__ or inherited keys', () => {
    const source = JSON.parse('{"metadata":{"name":"a"},"data":{"__proto__":{"polluted":1},"constructor":"c"}}');
    const out = project(['data.__proto__', 'data.constructor', 'data.toString'])(source) as { data: Record<string, unknown> };
    expect(Object.getPrototypeOf(out.data)).toBe(Object.prototype);
    expect(Object.keys(out.data).sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(project(['data.hasOwnProperty'])({ data: {} } as never)).toEqual({});
  });

  it('should name itself by its paths, canonical, sorted and without duplicates', () => {
    const a = project(['status.phase', 'spec.nodeName', 'status.phase']);
    const b = project(['spec.nodeName', 'status.phase']);
    expect(a.paths).toEqual(['spec.nodeName', 'status.phase']);
    expect(a.key).toBe(b.key);
    expect(project(['status.phase']).key).not.toBe(a.key);
    expect(Object.isFrozen(a)).toBe(true);
    expect(project([]).paths).toEqual([]);
    expect(project([])(pod())).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: project(['metadata.name'])(pod()).metadata });
  });

  it('should refuse bad paths with FieldPathError naming which, and what is not an array of paths', () => {
    expect(() => project(['status.phase', 'spec.containers[0]'])).toThrow(FieldPathError);
    try {
      project(['status.phase', 'spec.containers[0]']);
    } catch (e) {
      expect(e).toMatchObject({ reason: 'InvalidFieldPath', index: 1, position: 15, path: 'spec.containers[0]' });
      expect((e as Error).message).toContain('(path 1 of the projection)');
    }
    expect(() => project('status.phase' as never)).toThrow(InvalidOptionsError);
    expect(() => project([3 as never])).toThrow(FieldPathError);
  });

  it('should refuse to project what is not an object', () => {
    for (const bad of [null, 'x', 3, [1]]) expect(() => project(['a'])(bad as never)).toThrow(InvalidObjectError);
  });

  it('should keep exactly INFORMER_FIELDS of an object with no other path', () => {
    const out = project([])(pod()) as ReturnType<typeof pod>;
    const kept = [...Object.keys(out).filter((k) => k !== 'metadata'), ...Object.keys(out.metadata).map((k) => `metadata.${k}`)].sort();
    expect(kept).toEqual(INFORMER_FIELDS.filter((f) => f !== 'metadata.deletionTimestamp').sort());
  });
});

// A reference projection, written apart from the compiled tree: the paths are followed one by one,
// grouped by their first step at each level.
function reference(value: unknown, paths: readonly (readonly FieldPathStep[])[]): unknown {
  if (paths.some((p) => p.length === 0)) return value;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    const rest = paths.filter((p) => 'each' in p[0]).map((p) => p.slice(1));
    if (rest.length === 0) return undefined;
    return value.map((e) => reference(e, rest) ?? (typeof e === 'object' && e !== null && !Array.isArray(e) ? {} : null));
  }
  const out: Record<string, unknown> = {};
  const keys = [...new Set(paths.flatMap((p) => ('key' in p[0] ? [p[0].key] : [])))];
  for (const k of keys) {
    if (!Object.hasOwn(value, k)) continue;
    const kept = reference(
      (value as Record<string, unknown>)[k],
      paths.filter((p) => 'key' in p[0] && p[0].key === k).map((p) => p.slice(1)),
    );
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Every value `steps` reaches in `value`, with the concrete path to it. */
function reached(value: unknown, steps: readonly FieldPathStep[], at: (string | number)[] = []): [(string | number)[], unknown][] {
  if (steps.length === 0) return [[at, value]];
  if (typeof value !== 'object' || value === null) return [];
  const [step, ...rest] = steps;
  if ('each' in step) return Array.isArray(value) ? value.flatMap((e, i) => reached(e, rest, [...at, i])) : [];
  if (Array.isArray(value) || !Object.hasOwn(value, step.key)) return [];
  return reached((value as Record<string, unknown>)[step.key], rest, [...at, step.key]);
}

const at = (value: unknown, path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);

describe('project (properties)', () => {
  const key = fc.constantFrom('a', 'b', 'c', 'metadata', 'name');
  const json = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(1, 'x', true, null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const object = fc.dictionary(key, json, { maxKeys: 5 });
  const path = fc
    .tuple(key, fc.array(fc.oneof(key, fc.constant('[*]')), { maxLength: 4 }))
    .map(([first, rest]) => first + rest.map((s) => (s === '[*]' ? s : `.${s}`)).join(''));
  const paths = fc.array(path, { maxLength: 5 });

  it('should keep what a reference projection keeps', () => {
    fc.assert(
      fc.property(object, paths, (obj, ps) => {
        const all = [...INFORMER_FIELDS, ...ps].map((p) => parseFieldPath(p).steps);
        expect(project(ps)(obj)).toEqual(reference(obj, all) ?? {});
      }),
      { numRuns: 500 },
    );
  });

  it('should keep every value a path reaches, at its place, and never change the object', () => {
    fc.assert(
      fc.property(object, paths, (obj, ps) => {
        const before = JSON.stringify(obj);
        const out = project(ps)(obj);
        for (const p of ps) for (const [where, value] of reached(obj, parseFieldPath(p).steps)) expect(at(out, where)).toEqual(value);
        expect(JSON.stringify(obj)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it('should be idempotent', () => {
    fc.assert(
      fc.property(object, paths, (obj, ps) => {
        const p = project(ps);
        expect(p(p(obj) as never)).toEqual(p(obj));
      }),
      { numRuns: 300 },
    );
  });
});
