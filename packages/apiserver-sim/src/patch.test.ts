import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PatchError, applyJsonPatch, applyMergePatch } from './jsonPatch.ts';
import { applyStrategicMergePatch } from './strategicMerge.ts';

describe('applyJsonPatch', () => {
  it('should apply add, remove, replace, move, copy and test, with escapes and "-"', () => {
    const doc = { a: { 'b/c': 1, 'd~e': 2 }, l: [1, 2] };
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/l/-', value: 3 },
      { op: 'add', path: '/l/0', value: 0 },
      { op: 'replace', path: '/a/b~1c', value: 9 },
      { op: 'remove', path: '/a/d~0e' },
      { op: 'copy', from: '/l', path: '/m' },
      { op: 'move', from: '/a', path: '/z' },
      { op: 'test', path: '/z/b~1c', value: 9 },
    ]);
    expect(out).toEqual({ l: [0, 1, 2, 3], m: [0, 1, 2, 3], z: { 'b/c': 9 } });
    expect(doc).toEqual({ a: { 'b/c': 1, 'd~e': 2 }, l: [1, 2] }); // input untouched
  });

  it('should refuse failed tests and missing paths as Invalid, malformed operations as BadRequest', () => {
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(
      expect.objectContaining({ reason: 'Invalid', code: 422 }),
    );
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }])).toThrow(PatchError);
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'frobnicate', path: '/a' }])).toThrow(expect.objectContaining({ reason: 'BadRequest' }));
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'add', path: 'a', value: 1 }])).toThrow(expect.objectContaining({ code: 400 }));
  });
});

describe('applyMergePatch', () => {
  it('should merge objects, delete on null and replace everything else', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({ a: { c: 2, d: 3 }, l: [3] });
  });
  it('should be idempotent', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.dictionary(fc.string(), json), (doc, patch) => {
        const once = applyMergePatch(doc, patch);
        expect(applyMergePatch(once, patch)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });
});

describe('applyStrategicMergePatch', () => {
  const pod = {
    metadata: { labels: { app: 'web', old: 'x' }, finalizers: ['a'] },
    spec: {
      containers: [
        { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] },
        { name: 'log', image: 'busybox' },
      ],
    },
  };

  it('should merge lists by key the way kubectl apply sends them, never storing directives', () => {
    const out = applyStrategicMergePatch(pod, {
      metadata: { labels: { old: null, tier: 'front' } },
      spec: {
        '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
        containers: [
          { name: 'nginx', image: 'nginx:1.28', ports: [{ containerPort: 443 }] },
          { name: 'sidecar', image: 'busybox:1.36' },
          { name: 'log', $patch: 'delete' },
        ],
      },
    });
    expect(out.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(out.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual([
      'nginx=nginx:1.28',
      'sidecar=busybox:1.36',
    ]);
    expect(out.spec.containers[0].ports).toEqual([{ containerPort: 80 }, { containerPort: 443 }]);
    expect(JSON.stringify(out)).not.toContain('$');
  });

  it('should honour $patch replace, $retainKeys and $deleteFromPrimitiveList', () => {
    expect(
      applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } }).spec.containers,
    ).toEqual([{ name: 'only', image: 'x' }]);
    expect(applyStrategicMergePatch({ s: { a: 1, b: 2, c: 3 } }, { s: { $retainKeys: ['a', 'c'], c: 4 } })).toEqual({ s: { a: 1, c: 4 } });
    expect(applyStrategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers).toEqual([]);
    expect(applyStrategicMergePatch(pod, { metadata: { finalizers: ['b', 'a'] } }).metadata.finalizers).toEqual(['a', 'b']);
  });

  it('should refuse a list item without its merge key', () => {
    expect(() => applyStrategicMergePatch(pod, { spec: { containers: [{ image: 'x' }] } })).toThrow(
      expect.objectContaining({ reason: 'Invalid' }),
    );
  });
});
