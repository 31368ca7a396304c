import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { decodeProtobufObject, readEnvelope } from './protobuf.ts';
import { bytes, entry, envelope, int, msg } from '@rxinformer/testing';

const fixtures = new URL('../test/fixtures/protobuf/', import.meta.url);

/** kubectl's JSON carries `creationTimestamp: null` for a zero Time; protobuf simply has no value. */
const withoutNullTimestamps = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutNullTimestamps)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k, v]) => !(k === 'creationTimestamp' && v === null))
            .map(([k, v]) => [k, withoutNullTimestamps(v)]),
        )
      : value;

const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { status?: Record<string, unknown> }).status;
  }
  throw new Error('expected a Status error');
};

describe('decodeProtobufObject', () => {
  const names = readdirSync(fixtures).filter((f) => f.endsWith('.bin'));

  it('should have a kubectl 1.33 protobuf body and a kubectl 1.27 JSON body for every fixture', () => {
    expect(names.map((n) => n.replace('.bin', '')).sort()).toEqual(
      readdirSync(new URL('json-1.27/', fixtures))
        .map((n) => n.replace('.json', ''))
        .sort(),
    );
    expect(names.length).toBeGreaterThanOrEqual(10);
  });

  it.each(names)('should decode kubectl 1.33 `create` body %s to the object kubectl 1.27 sends as JSON', (name) => {
    const decoded = decodeProtobufObject(readFileSync(new URL(name, fixtures)));
    const json = JSON.parse(readFileSync(new URL(`json-1.27/${name.replace('.bin', '.json')}`, fixtures), 'utf8'));
    expect(decoded).toEqual(withoutNullTimestamps(json));
  });

  it('should keep a zero in a pointer field and leave out a zero omitempty scalar', () => {
    const body = envelope('apps/v1', 'Deployment', [
      msg(1, bytes(1, 'd'), bytes(2, ''), int(7, 0)),
      msg(2, int(1, 0), int(5, 0), int(7, false)),
    ]);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 0 },
    });
  });

  it('should decode negative and 64-bit integers, quantities, times and int-or-strings', () => {
    const body = envelope('v1', 'Pod', [
      msg(1, bytes(1, 'p'), msg(8), msg(9, int(1, 1_700_000_000)), int(10, -1n)),
      msg(
        2,
        int(4, 9_007_199_254_740_991n),
        int(25, -5),
        msg(2, bytes(1, 'c'), msg(8, entry(1, 'cpu', msg(2, bytes(1, '500m'))), entry(1, 'memory', msg(2, bytes(1, '64Mi'))))),
      ),
    ]);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', deletionTimestamp: '2023-11-14T22:13:20Z', deletionGracePeriodSeconds: -1 },
      spec: {
        terminationGracePeriodSeconds: 9_007_199_254_740_991,
        priority: -5,
        containers: [{ name: 'c', resources: { limits: { cpu: '500m', memory: '64Mi' } } }],
      },
    });
    const svc = envelope('v1', 'Service', [
      msg(2, msg(1, int(3, 80), msg(4, int(1, 1), bytes(3, 'http'))), msg(1, int(3, 81), msg(4, int(1, 0), int(2, 8081)))),
    ]);
    expect((decodeProtobufObject(svc).spec as { ports: unknown }).ports).toEqual([
      { port: 80, targetPort: 'http' },
      { port: 81, targetPort: 8081 },
    ]);
  });

  it('should merge an embedded struct into its parent and base64 binary map values', () => {
    const env = msg(7, bytes(1, 'A'), msg(3, msg(3, msg(1, bytes(1, 'cm')), bytes(2, 'k'))));
    const pod = decodeProtobufObject(envelope('v1', 'Pod', [msg(2, msg(2, bytes(1, 'c'), env))]));
    expect((pod.spec as any).containers[0].env).toEqual([{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }]);
    const secret = decodeProtobufObject(
      envelope('v1', 'Secret', [msg(1, bytes(1, 's')), entry(2, 'bin', bytes(2, [0, 255])), entry(2, 'empty', []), bytes(3, 'Opaque')]),
    );
    expect(secret).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { bin: 'AP8=', empty: '' }, type: 'Opaque' });
  });

  it('should answer 415 naming the kind for a kind without a schema', () => {
    const status = statusOf(() => decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'Role', [msg(1, bytes(1, 'r'))])));
    expect(status).toMatchObject({
      kind: 'Status',
      code: 415,
      reason: 'UnsupportedMediaType',
      details: { kind: 'Role', group: 'rbac.authorization.k8s.io' },
    });
    expect(status?.message).toContain('rbac.authorization.k8s.io/v1, Kind=Role');
  });

  it('should answer 415 for a field the simulator does not decode rather than drop it', () => {
    const status = statusOf(() => decodeProtobufObject(envelope('v1', 'Pod', [msg(2, msg(1, bytes(1, 'vol')))]))); // PodSpec.volumes
    expect(status).toMatchObject({ code: 415, details: { kind: 'Pod' } });
    expect(status?.message).toContain('field 1 of PodSpec');
  });

  it('should answer 415 for a body without the magic, a truncated body, a wrong wire type and an encoded body', () => {
    const good = envelope('v1', 'Namespace', [msg(1, bytes(1, 'n'))]);
    expect(statusOf(() => decodeProtobufObject(Buffer.from('{"kind":"Namespace"}')))?.message).toContain('magic');
    expect(statusOf(() => decodeProtobufObject(good.subarray(0, good.length - 1)))?.message).toContain('runs past the end');
    expect(statusOf(() => decodeProtobufObject(envelope('v1', 'Namespace', [int(1, 3)])))?.message).toContain(
      'Namespace.metadata: expected a length-delimited field',
    );
    expect(
      statusOf(() => decodeProtobufObject(envelope('v1', 'Namespace', [msg(1, bytes(1, 'n'))], [bytes(3, 'gzip')])))?.message,
    ).toContain('content encoding "gzip"');
  });

  it('should answer 415, not fail, for a time out of the RFC 3339 range', () => {
    const at = (seconds: number | bigint) => () =>
      decodeProtobufObject(envelope('v1', 'Namespace', [msg(1, bytes(1, 'n'), msg(8, int(1, seconds)))]));
    expect(statusOf(at(1e15))).toMatchObject({ code: 415 });
    expect(statusOf(at(1e15))?.message).toContain('time out of range');
    expect(statusOf(at(-62_135_596_801))).toMatchObject({ code: 415 });
    expect((at(253_402_300_799)().metadata as { creationTimestamp?: string }).creationTimestamp).toBe('9999-12-31T23:59:59Z');
  });
});

describe('readEnvelope', () => {
  it('should read typeMeta, raw, contentEncoding and contentType', () => {
    const env = readEnvelope(envelope('v1', 'ConfigMap', [[1, 2, 3]], [bytes(4, 'application/vnd.kubernetes.protobuf')]));
    expect(env).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      raw: Uint8Array.of(1, 2, 3),
      contentEncoding: '',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
  });
});
