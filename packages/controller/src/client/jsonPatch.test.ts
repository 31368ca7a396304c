import { describe, expect, it } from '@jest/globals';
import { applyJsonPatch } from '@rxinformer/apiserver-sim';
import { InvalidObjectError, type KubeObject } from '@rxinformer/core';
import fc from 'fast-check';
import { draftPatch, guardedOperations, toPointer } from './jsonPatch.ts';

interface Doc extends KubeObject {
  data?: Record<string, string>;
  spec?: { containers: { name: string; args?: string[] }[]; tags?: string[] };
}

const base: Doc = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'a', resourceVersion: '7', labels: { keep: '1' } },
  data: { a: '1' },
  spec: { containers: [{ name: 'app', args: ['-v'] }, { name: 'side' }], tags: ['t1', 't2', 't3'] },
};

describe('draftPatch', () => {
  it('should give no operation when the recipe changed nothing, or set a value to an equal one', () => {
    expect(draftPatch(base, () => {}).operations).toEqual([]);
    expect(draftPatch(base, (d) => void (d.data!.a = '1')).operations).toEqual([]);
    expect(draftPatch(base, (d) => void (d.data = { a: '1' })).operations).toEqual([]);
    expect(draftPatch(base, (d) => void d.spec!.tags!.push(d.spec!.tags!.pop()!)).operations).toEqual([]);
  });

  it('should escape ~ and / in JSON Pointers (RFC 6901)', () => {
    expect(toPointer(['metadata', 'labels', 'app.kubernetes.io/name'])).toBe('/metadata/labels/app.kubernetes.io~1name');
    expect(toPointer(['a~b', '~1'])).toBe('/a~0b/~01');
    const { operations, next } = draftPatch(base, (d) => {
      d.metadata!.labels!['example.com/tier~x'] = 'gold';
    });
    expect(operations).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1tier~0x', value: 'gold' }]);
    expect(applyJsonPatch(base, operations)).toEqual(next);
  });

  it('should send the whole array, once, for changes inside it (no index operations, no length)', () => {
    const { operations, next } = draftPatch(base, (d) => {
      d.spec!.tags!.length = 1;
      d.spec!.containers[0].args!.push('-x');
      d.spec!.containers.splice(1, 1);
    });
    expect(operations).toHaveLength(2);
    expect(operations).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/spec/tags', value: ['t1'] },
        { op: 'replace', path: '/spec/containers', value: [{ name: 'app', args: ['-v', '-x'] }] },
      ]),
    );
    expect(applyJsonPatch(base, operations)).toEqual(next);
  });

  it('should send a map replaced by a spread of itself key by key', () => {
    const { operations, next } = draftPatch(base, (d) => {
      d.metadata = { ...d.metadata, labels: { ...d.metadata!.labels, 'a/b': 'x' } };
      d.data = {};
    });
    expect(operations).toEqual([
      { op: 'add', path: '/metadata/labels/a~1b', value: 'x' },
      { op: 'remove', path: '/data/a' },
    ]);
    expect(applyJsonPatch(base, operations)).toEqual(next);
  });

  it('should remove a field set to undefined, and leave out a new undefined one', () => {
    const { operations } = draftPatch(base, (d) => {
      d.data!.a = undefined as unknown as string;
      (d.data as Record<string, string | undefined>).b = undefined;
    });
    expect(operations).toEqual([{ op: 'remove', path: '/data/a' }]);
  });

  it('should produce operations that turn the base into the draft, for any change of maps and arrays', () => {
    const key = fc.oneof(fc.constantFrom('a', 'a/b', '~', '~1', 'x.y/z'), fc.string({ maxLength: 4 }));
    const value = fc.oneof(fc.string({ maxLength: 3 }), fc.constant(undefined));
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key, value }),
      fc.record({ kind: fc.constant('push' as const), value: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('splice' as const), at: fc.nat(4), n: fc.nat(2) }),
      fc.record({ kind: fc.constant('label' as const), key, value }),
      fc.record({ kind: fc.constant('spread' as const), key, value }),
    );
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 8 }), (edits) => {
        const { operations, next } = draftPatch(base, (d) => {
          for (const e of edits) {
            if (e.kind === 'set') (d.data as Record<string, string | undefined>)[e.key] = e.value;
            else if (e.kind === 'label') (d.metadata!.labels as Record<string, string | undefined>)[e.key] = e.value;
            else if (e.kind === 'spread') d.metadata = { ...d.metadata, labels: { ...d.metadata!.labels, [e.key]: e.value as string } };
            else if (e.kind === 'push') d.spec!.tags!.push(e.value);
            else d.spec!.tags!.splice(e.at, e.n);
          }
        });
        // JSON drops undefined values: compare what goes over the wire.
        expect(applyJsonPatch(JSON.parse(JSON.stringify(base)), operations)).toEqual(JSON.parse(JSON.stringify(next)));
      }),
    );
  });

  it('should refuse a class instance, which immer would not draft', () => {
    class Thing {
      metadata = { name: 'x' };
    }
    expect(() => draftPatch(new Thing(), () => {})).toThrow(InvalidObjectError);
  });
});

describe('guardedOperations', () => {
  it('should end with the resourceVersion read, and refuse an object without one', () => {
    expect(guardedOperations(base, [{ op: 'remove', path: '/data/a' }])).toEqual([
      { op: 'remove', path: '/data/a' },
      { op: 'add', path: '/metadata/resourceVersion', value: '7' },
    ]);
    expect(() => guardedOperations({ metadata: { name: 'x' } }, [{ op: 'remove', path: '/data/a' }])).toThrow(/resourceVersion/);
  });

  it.each<[string, (d: Doc) => Doc | void]>([
    ['returns a new object', (d) => ({ metadata: { name: d.metadata!.name }, data: { a: '2' } })],
    ['replaces metadata', (d) => void (d.metadata = { name: 'x', labels: { l: 'v' } })],
    ['deletes the resourceVersion', (d) => void (delete d.metadata!.resourceVersion, (d.data!.a = '2'))],
    ['changes the resourceVersion', (d) => void ((d.metadata!.resourceVersion = '99'), (d.data!.a = '2'))],
  ])('should keep the precondition at the version read when the recipe %s', (_what, recipe) => {
    const operations = guardedOperations(base, draftPatch(base, recipe).operations);
    const patched = applyJsonPatch<Doc>(JSON.parse(JSON.stringify(base)), operations);
    expect(patched.metadata?.resourceVersion).toBe('7');
    expect(operations.filter((o) => o.path === '/metadata/resourceVersion')).toEqual([
      { op: 'add', path: '/metadata/resourceVersion', value: '7' },
    ]);
  });

  it('should send nothing when the recipe changed only the resourceVersion', () => {
    expect(guardedOperations(base, draftPatch(base, (d) => void (d.metadata!.resourceVersion = '99')).operations)).toEqual([]);
  });
});
