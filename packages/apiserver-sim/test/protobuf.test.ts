import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { bytes, envelope, msg } from '@rxinformer/testing';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('protobuf request bodies', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 5 });
  });
  afterAll(() => sim.close());

  const post = (path: string, body: Uint8Array, accept = `${PROTOBUF},application/json`) =>
    fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: accept }, body: Buffer.from(body) });

  it('should create a Deployment from the body kubectl 1.33 sent, answering JSON though protobuf is asked for first', async () => {
    const r = await post(
      '/apis/apps/v1/namespaces/default/deployments',
      readFileSync(new URL('fixtures/protobuf/deployment.bin', import.meta.url)),
    );
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    const created = (await r.json()) as any;
    expect(created.metadata).toMatchObject({ name: 'web', namespace: 'default', labels: { app: 'web' } });
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.spec.replicas).toBe(2);
    expect((sim.storage.get('deployments', 'default', 'web') as any).spec.template.spec.containers[0]).toEqual({
      name: 'nginx',
      image: 'nginx',
      ports: [{ containerPort: 80 }],
      resources: {},
    });
  });

  it('should update with a protobuf body', async () => {
    const rv = sim.storage.get('deployments', 'default', 'web').metadata?.resourceVersion as string;
    const body = envelope('apps/v1', 'Deployment', [
      msg(1, bytes(1, 'web'), bytes(6, rv)),
      msg(
        2,
        msg(2, msg(1, msg(1, bytes(1, 'app'), bytes(2, 'web')))),
        msg(3, msg(1, msg(11, bytes(1, 'app'), bytes(2, 'web'))), msg(2, msg(2, bytes(1, 'nginx'), bytes(2, 'nginx:2')))),
      ),
    ]);
    const r = await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments/web`, {
      method: 'PUT',
      headers: { 'Content-Type': PROTOBUF },
      body: Buffer.from(body),
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).spec.template.spec.containers[0].image).toBe('nginx:2');
  });

  it('should answer 415 with a Status naming the kind for a kind it cannot decode', async () => {
    const r = await post('/api/v1/namespaces/default/configmaps', envelope('v1', 'LimitRange', [msg(1, bytes(1, 'x'))]));
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'UnsupportedMediaType',
      code: 415,
      details: { kind: 'LimitRange' },
    });
  });

  it('should answer 415, not 500, for bytes that are not a protobuf object', async () => {
    const r = await post('/api/v1/namespaces', Uint8Array.from(Buffer.from('{"metadata":{"name":"json-as-protobuf"}}')));
    expect(r.status).toBe(415);
    expect(((await r.json()) as any).message).toContain('magic');
  });
});
