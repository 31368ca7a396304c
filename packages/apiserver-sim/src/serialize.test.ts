import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { realisticPod } from './realisticPod.ts';
import { listJson, stringifyStored, watchLine } from './serialize.ts';

describe('stringifyStored', () => {
  it('should equal JSON.stringify for any JSON object', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.array(fc.jsonValue()), (spec, meta, fields) => {
        const obj = {
          apiVersion: 'v1',
          kind: 'X',
          metadata: { name: 'a', extra: meta, managedFields: fields.map((f) => ({ manager: 'm', fieldsV1: { 'f:x': f } })) },
          spec,
        };
        expect(stringifyStored(obj)).toBe(JSON.stringify(obj));
      }),
    );
  });

  it('should keep metadata key order wherever managedFields sits, and with nothing else in metadata', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.array(fc.jsonValue()), (meta, at, fields) => {
        const keys = Object.keys(meta);
        const pos = keys.length === 0 ? 0 : at % (keys.length + 1);
        const m: Record<string, unknown> = {};
        keys.forEach((k, i) => {
          if (i === pos) m.managedFields = fields;
          m[k] = meta[k];
        });
        if (pos === keys.length) m.managedFields = fields;
        const obj = { kind: 'X', metadata: m };
        expect(stringifyStored(obj)).toBe(JSON.stringify(obj));
        expect(stringifyStored(obj)).toBe(JSON.stringify(obj)); // again, from the cache
      }),
    );
    const only = { metadata: { managedFields: [{ manager: 'a' }, { manager: 'b' }] } };
    expect(stringifyStored(only)).toBe(JSON.stringify(only));
  });

  it('should equal JSON.stringify for objects sharing parts with earlier versions', () => {
    let pod = realisticPod(1) as any;
    for (let i = 0; i < 20; i++) {
      expect(stringifyStored(pod)).toBe(JSON.stringify(pod));
      const entry = {
        ...pod.metadata.managedFields[0],
        time: `t${i}`,
        fieldsV1: { ...pod.metadata.managedFields[0].fieldsV1, 'f:metadata': { i: {} } },
      };
      pod = {
        ...pod,
        metadata: { ...pod.metadata, resourceVersion: String(i), managedFields: [entry, ...pod.metadata.managedFields.slice(1)] },
      };
    }
  });

  it('should skip undefined members and honour toJSON like JSON.stringify', () => {
    const obj = { a: undefined, b: [undefined, 1], metadata: { managedFields: [undefined], when: new Date(0) }, spec: { t: new Date(0) } };
    expect(stringifyStored(obj)).toBe(JSON.stringify(obj));
    expect(JSON.parse(watchLine('ADDED', obj))).toEqual({ type: 'ADDED', object: JSON.parse(JSON.stringify(obj)) });
  });
});

describe('listJson', () => {
  it('should equal JSON.stringify of the list, also when the same stored items are listed again', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.jsonValue(), (specs, meta) => {
        const items = specs.map((spec, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, extra: meta }, spec }));
        const metadata = { resourceVersion: '9', continue: 'abc' };
        const expected = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata, items });
        expect(listJson('PodList', 'v1', metadata, items)).toBe(expected);
        expect(listJson('PodList', 'v1', metadata, items)).toBe(expected); // cached items
        expect(listJson('PodList', 'v1', {}, [])).toBe('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}');
      }),
    );
  });
});
