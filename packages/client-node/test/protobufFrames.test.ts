/**
 * The protobuf wire's decoder on bytes built field by field: the JSON rules (omitempty, nil
 * slices, zero times, int-or-string, quantities, pointers), watch frames cut across chunks, and
 * every malformed body or frame refused with its typed error.
 */
import { describe, expect, it } from '@jest/globals';
import { metadataOnly, ResponseTooLargeError, WatchDecodeError, type WatchEvent } from '@rxinformer/core';
import { readFileSync } from 'node:fs';
import { generateSchema, SCHEMA_FILE } from '../scripts/protobufSchema.ts';
import { bytes, envelope, int, msg, PAGED } from '@rxinformer/testing';
import { firstValueFrom } from 'rxjs';
import {
  createKubeInformerFactory,
  customResourceDefinitions,
  defineResource,
  kubeConfigListerWatcher,
  PROTOBUF_ACCEPT,
  ProtobufDecodeError,
  protobufCodec,
  pods,
  type KubeTransport,
} from '../src/index.ts';
import { jsonAnswer, serverKubeConfig } from './simHarness.ts';

const body = (apiVersion: string, kind: string, ...raw: number[][]) => envelope(apiVersion, kind, raw);
const frame = (type: string, object: Uint8Array) => {
  const event = [...bytes(1, type), ...msg(2, bytes(1, [...object]))];
  return Uint8Array.from([...[24, 16, 8, 0].map((s) => (event.length >>> s) & 0xff), ...event]);
};

const codec = protobufCodec();
const meta = (name: string, rv: string) => msg(1, bytes(1, name), bytes(3, 'ns'), bytes(6, rv), msg(8, int(1, 1_767_225_600)));
const podFields = (name: string, rv = '7') => [
  meta(name, rv),
  // spec: one container with a port (containerPort has no omitempty), a zero hostPort (omitempty)
  msg(
    2,
    msg(2, bytes(1, 'c'), bytes(2, 'nginx'), msg(6, int(3, 80), int(2, 0)), msg(8, msg(1, bytes(1, 'cpu'), msg(2, bytes(1, '100m'))))),
    bytes(14, ''),
  ),
  msg(3, bytes(1, 'Running'), msg(7, int(1, 0))),
];
const pod = (name: string, rv = '7') => body('v1', 'Pod', ...podFields(name, rv));

describe('the protobuf decoder', () => {
  it('should give the objects encoding/json gives: omitempty zeros left out, nil slices null, zero times null, quantities as strings', () => {
    const page = codec.list(body('v1', 'PodList', msg(1, bytes(3, 'next')), bytes(2, podFields('a').flat())));
    expect(page.metadata?.continue).toBe('next');
    const [a] = page.items as any[];
    expect(a.apiVersion).toBe('v1');
    expect(a.kind).toBe('Pod');
    expect(a.metadata).toEqual({ name: 'a', namespace: 'ns', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(a.spec.containers).toEqual([
      { name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '100m' } } },
    ]);
    // PodSpec.containers has no omitempty but is set; hostAliases has omitempty and is unset
    expect(a.spec).not.toHaveProperty('hostAliases');
    expect(a.status.phase).toBe('Running');
    expect(a.status.startTime).toBeNull(); // *Time set to the zero time: null, as Time.MarshalJSON writes it
  });

  it('should read the continue token ahead of the items, and an empty list as items []', () => {
    const empty = body('v1', 'ConfigMapList', msg(1, bytes(2, 'rv'), bytes(3, 'tok')));
    expect(codec.peekContinue(empty)).toBe('tok');
    expect(codec.list(empty).items).toEqual([]);
  });

  it('should decode a Status answer for the API error', () => {
    const status = body('v1', 'Status', msg(1), bytes(2, 'Failure'), bytes(3, 'gone'), bytes(4, 'Expired'), int(6, 410));
    expect(JSON.parse(codec.statusText(status))).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
  });

  it('should join frames cut anywhere across chunks and stop when the consumer does', () => {
    const stream = Buffer.concat([frame('ADDED', pod('a')), frame('MODIFIED', pod('a', '8')), frame('DELETED', pod('a', '9'))]);
    for (const cut of [1, 3, 4, 5, 17, stream.length - 1]) {
      const events: WatchEvent[] = [];
      const d = codec.watch(1 << 20);
      d.push(stream.subarray(0, cut), (e) => void events.push(e));
      d.push(stream.subarray(cut), (e) => void events.push(e));
      d.end();
      expect(events.map((e) => `${e.type} ${e.object.metadata?.resourceVersion}`)).toEqual(['ADDED 7', 'MODIFIED 8', 'DELETED 9']);
    }
    const d = codec.watch(1 << 20);
    expect(d.push(stream, () => false)).toBe(false);
  });

  it('should refuse a frame over the limit before holding it', () => {
    const d = codec.watch(64);
    expect(() => d.push(Uint8Array.of(0, 0, 1, 0), () => undefined)).toThrow(ResponseTooLargeError);
  });

  it('should refuse a stream that ends inside a frame', () => {
    const d = codec.watch(1 << 20);
    d.push(frame('ADDED', pod('a')).subarray(0, 10), () => undefined);
    expect(() => d.end()).toThrow(WatchDecodeError);
  });

  const malformed: [string, Uint8Array, string][] = [
    ['a body without the magic', Uint8Array.from(Buffer.from('{"kind":"Pod"}')), 'NoMagic'],
    ['a field past its message', pod('a').subarray(0, 40), 'Truncated'],
    ['a kind the table lacks', body('example.com/v1', 'Widget', meta('w', '1')), 'UnknownKind'],
    ['a wire type the schema forbids', body('v1', 'ConfigMap', int(1, 5)), 'BadWireType'],
    ['an end group wire type', body('v1', 'ConfigMap', [0x0c]), 'BadWireType'],
    ['a varint of 11 bytes', body('v1', 'ConfigMap', [0x20, ...Array(10).fill(0xff), 1]), 'BadVarint'],
    ['a time past year 9999', body('v1', 'ConfigMap', msg(1, msg(8, int(1, 253_402_300_800)))), 'BadTime'],
    ['a wrapped encoding', Uint8Array.from([...body('v1', 'ConfigMap'), ...bytes(3, 'gzip')]), 'UnsupportedEncoding'],
  ];
  it.each(malformed)('should refuse %s with a typed error in a list, and end a watch with a WatchDecodeError', (_what, bad, reason) => {
    expect(() => codec.list(bad)).toThrow(expect.objectContaining({ name: 'ProtobufDecodeError', reason }) as unknown as Error);
    const events: WatchEvent[] = [];
    const d = codec.watch(1 << 20);
    let error: unknown;
    try {
      d.push(Buffer.concat([frame('ADDED', pod('ok')), frame('ADDED', bad)]), (e) => void events.push(e));
    } catch (e) {
      error = e;
    }
    expect(events).toHaveLength(1); // the event before it was delivered
    expect(error).toBeInstanceOf(WatchDecodeError);
    expect((error as WatchDecodeError).cause).toBeInstanceOf(ProtobufDecodeError);
  });

  it('should refuse a watch event without an object', () => {
    const event = bytes(1, 'ADDED');
    const d = codec.watch(1 << 20);
    expect(() => d.push(Uint8Array.from([0, 0, 0, event.length, ...event]), () => undefined)).toThrow(WatchDecodeError);
  });
});

describe('the protobuf schema table', () => {
  it('should be what scripts/protobufSchema.ts makes of the Go modules envtest pins', async () => {
    // Needs k8s.io/api in the Go module cache: `npm run testenv:build` puts it there, as `npm test` does first.
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await generateSchema());
  }, 60_000);
});

describe('which requests ask for protobuf', () => {
  /** A transport that answers every GET with an empty JSON list and records its Accept header. */
  const fake = () => {
    const accepts: string[] = [];
    const get: KubeTransport['get'] = async (path, _signal, _kind, accept) => {
      accepts.push(`${path.split('?')[0]} ${accept ?? 'application/json'}`);
      return jsonAnswer(200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    };
    const transport = { server: 'http://x', get } as unknown as KubeTransport;
    return { accepts, transport };
  };
  const kc = serverKubeConfig('http://127.0.0.1:1');
  const widgets = defineResource({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });

  it('should ask for protobuf for built-in GA kinds only: JSON for CRDs, other groups, metadata-only lists', async () => {
    const { accepts, transport } = fake();
    const list = (o: Parameters<typeof kubeConfigListerWatcher>[1]) =>
      firstValueFrom(kubeConfigListerWatcher(kc, { transport, wire: 'protobuf', ...o }).list({}));
    await list({ resource: pods });
    await list({ resource: widgets });
    await list({ resource: customResourceDefinitions });
    await list({ resource: metadataOnly(pods) });
    await list({ path: '/apis/apps/v1/deployments' });
    await list({ path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas' });
    await firstValueFrom(kubeConfigListerWatcher(kc, { transport, resource: pods }).list({}));
    expect(accepts).toEqual([
      `/api/v1/pods ${PROTOBUF_ACCEPT}`,
      '/apis/example.com/v1/widgets application/json',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions application/json',
      expect.stringMatching(/^\/api\/v1\/pods application\/json;as=PartialObjectMetadataList/),
      `/apis/apps/v1/deployments ${PROTOBUF_ACCEPT}`,
      '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas application/json',
      '/api/v1/pods application/json',
    ]);
  });

  it("should pass the factory's wire to every informer", async () => {
    const { accepts, transport } = fake();
    const factory = createKubeInformerFactory(kc, { transport, wire: 'protobuf' });
    // The fake answers lists only: the informers page.
    factory.informerFor(pods, { reflector: PAGED });
    factory.informerFor(widgets, { reflector: PAGED });
    factory.start();
    await factory.waitForCacheSync();
    await factory.close();
    expect(accepts).toEqual(expect.arrayContaining([`/api/v1/pods ${PROTOBUF_ACCEPT}`, '/apis/example.com/v1/widgets application/json']));
  });

  it('should refuse a wire it does not know', () => {
    expect(() => kubeConfigListerWatcher(kc, { resource: pods, wire: 'yaml' as 'json' })).toThrow(/wire must be/);
  });
});
