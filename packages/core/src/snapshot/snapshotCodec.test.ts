import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  decodeSnapshot,
  encodeSnapshot,
  snapshotChecksum,
  snapshotWriter,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
} from './snapshotCodec.ts';
import { SnapshotRejectedError } from './snapshotErrors.ts';
import { snapshotIdentity, type SnapshotIdentity } from './snapshotIdentity.ts';
import type { KubeObject } from '../types.ts';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const identity = snapshotIdentity({ server: 'https://a:6443 (alice)', resource: configMaps, scope: { namespace: 'web' } });
const cm = (name: string, value: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'web', name, resourceVersion: '7' }, data: { v: value } }) as KubeObject;
const snapshot = { identity, resourceVersion: '42', writtenAt: '2026-12-01T10:00:00.000Z', objects: [cm('a', 'x\ny'), cm('b', 'ü→😀')] };

/** What `decodeSnapshot` threw for `text`. */
function refusal(text: string, expected: SnapshotIdentity = identity): SnapshotRejectedError {
  try {
    decodeSnapshot(text, expected, 'configmaps-k');
  } catch (e) {
    if (e instanceof SnapshotRejectedError) return e;
    throw e;
  }
  throw new Error('decoded');
}

describe('encodeSnapshot and decodeSnapshot', () => {
  it('should read back what was written: objects, resource version, time, identity', () => {
    expect(decodeSnapshot(encodeSnapshot(snapshot), identity)).toEqual(snapshot);
    const empty = { ...snapshot, objects: [] };
    expect(decodeSnapshot(encodeSnapshot(empty), identity)).toEqual(empty);
  });

  it('should write the same text in slices as in one go', () => {
    const writer = snapshotWriter();
    writer.add(snapshot.objects.slice(0, 1));
    writer.add([]);
    writer.add(snapshot.objects.slice(1));
    expect(writer.finish(snapshot)).toBe(encodeSnapshot(snapshot));
  });

  it('should round-trip any JSON objects', () => {
    const objects = fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 20 });
    fc.assert(
      fc.property(objects, (objs) => {
        const s = { ...snapshot, objects: objs as KubeObject[] };
        expect(decodeSnapshot(encodeSnapshot(s), identity).objects).toEqual(JSON.parse(JSON.stringify(objs)));
      }),
    );
  });

  it('should refuse a snapshot cut short anywhere as Truncated (or Malformed within its header)', () => {
    const text = encodeSnapshot(snapshot);
    const header = text.indexOf('\n');
    for (let cut = 0; cut < text.length; cut++) {
      const { reason } = refusal(text.slice(0, cut));
      if (cut > header) expect(reason).toBe('Truncated');
      else expect(['Truncated', 'Malformed']).toContain(reason);
    }
  });

  it('should refuse changed content of the same length, or a changed header, as ChecksumMismatch', () => {
    const text = encodeSnapshot(snapshot);
    expect(refusal(text.replace('"name":"a"', '"name":"c"')).reason).toBe('ChecksumMismatch');
    // A resource version one digit off would resume the watch from elsewhere and miss changes.
    expect(refusal(text.replace('"resourceVersion":"42"', '"resourceVersion":"43"')).reason).toBe('ChecksumMismatch');
    expect(refusal(text.replace('"writtenAt":"2026-12-01T10', '"writtenAt":"2026-12-01T11')).reason).toBe('ChecksumMismatch');
  });

  it('should refuse what is not a snapshot as Malformed, and another version as UnsupportedVersion', () => {
    expect(refusal('{"kind":"List"}\n[]').reason).toBe('Malformed');
    expect(refusal('not json\n').reason).toBe('Malformed');
    const other = encodeSnapshot(snapshot).replace(`"version":${SNAPSHOT_FORMAT_VERSION},`, '"version":99,');
    expect(refusal(other)).toMatchObject({ reason: 'UnsupportedVersion' });
  });

  it('should refuse a snapshot of another server, resource, scope or transform as Foreign, naming the field', () => {
    const text = encodeSnapshot(snapshot);
    const other = (parts: Partial<Parameters<typeof snapshotIdentity>[0]>) =>
      snapshotIdentity({ server: 'https://a:6443 (alice)', resource: configMaps, scope: { namespace: 'web' }, ...parts });
    expect(refusal(text, other({ server: 'https://a:6443 (bob)' }))).toMatchObject({ reason: 'Foreign', field: 'server' });
    expect(refusal(text, other({ resource: { ...configMaps, resource: 'secrets' } }))).toMatchObject({ field: 'resource' });
    expect(refusal(text, other({ resource: { ...configMaps, metadataOnly: true } }))).toMatchObject({ field: 'metadataOnly' });
    expect(refusal(text, other({ scope: { namespace: 'db' } }))).toMatchObject({ field: 'namespace' });
    expect(refusal(text, other({ scope: { namespace: 'web', labelSelector: 'a=b' } }))).toMatchObject({ field: 'labelSelector' });
    expect(refusal(text, other({ transformId: 'drop-managed-fields' }))).toMatchObject({ field: 'transform' });
  });

  it('should refuse a body whose lines are not JSON objects, never quoting them', () => {
    // A body of lines that are not objects, with a true header for it (a writer other than ours).
    const forged = (body: string) => {
      const fields = { resourceVersion: '42', writtenAt: snapshot.writtenAt, objects: body.split('\n').length, chars: body.length };
      const checksum = snapshotChecksum(body, identity, fields);
      return `${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_FORMAT_VERSION, identity, ...fields, checksum })}\n${body}`;
    };
    expect(decodeSnapshot(forged('{"a":1}\n{"b":2}'), identity).objects).toEqual([{ a: 1 }, { b: 2 }]); // the forgery is right
    const secret = refusal(forged('{"data":{"password":"hunter2"'));
    expect(secret.reason).toBe('Malformed');
    expect(secret.message).not.toContain('hunter2');
    expect(refusal(forged('[1,2]')).reason).toBe('Malformed');
    expect(refusal(forged('{"a":1} {"b":2}')).reason).toBe('Malformed'); // not one object per line
  });
});
