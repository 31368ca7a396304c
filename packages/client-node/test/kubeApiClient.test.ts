/**
 * `kubeApiClient`: @rxinformer/controller's writes through the KubeConfig's transport, against the
 * simulator and a real kube-apiserver; and the typed errors of client-node's own generated API.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { ApiError, isAlreadyExists, isConflict, isNotFound, resourceApi, toApiError } from '@rxinformer/controller';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { configMaps, kubeApiClient } from '../src/index.ts';

describe.each(serverKinds())('kubeApiClient against the %s server', (kind) => {
  let server: TestServer;
  let ns: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    ns = await server.namespace('apiclient');
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());

  it('should create, draft-update (a JSON Patch), merge-patch, apply and delete, with typed errors', async () => {
    const cms = resourceApi(kubeApiClient(server.kubeConfig()), configMaps);
    const created = await cms.create({ metadata: { namespace: ns, name: 'x' }, data: { a: '1' } });
    const updated = await cms.update(created, (d) => void (d.metadata!.labels = { 'example.com/tier': 'gold' }));
    expect(updated.metadata?.labels).toEqual({ 'example.com/tier': 'gold' });
    const stale = await cms.update(created, (d) => void (d.data = { a: '2' })).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect(isConflict(stale)).toBe(true);
    expect((await cms.mergePatch({ namespace: ns, name: 'x' }, { data: { b: '2' } })).data).toEqual({ a: '1', b: '2' });
    const applied = await cms.apply({ metadata: { namespace: ns, name: 'x' }, data: { c: '3' } }, { fieldManager: 'ctl' });
    expect(applied.data).toEqual({ a: '1', b: '2', c: '3' });
    await cms.delete({ namespace: ns, name: 'x' });
    expect(isNotFound(await cms.get({ namespace: ns, name: 'x' }).catch((e: unknown) => e))).toBe(true);
  });

  it("should type client-node's ApiException: AlreadyExists and Conflict apart, and read like kubectl", async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const body = { metadata: { name: 'y' }, data: { a: '1' } };
    const created = await core.createNamespacedConfigMap({ namespace: ns, body });
    const exists = await core.createNamespacedConfigMap({ namespace: ns, body }).catch((e: unknown) => e);
    expect(String(exists)).toMatch(/^Error: HTTP-Code: 409/); // what client-node says
    expect(isAlreadyExists(exists)).toBe(true);
    expect(isConflict(exists)).toBe(false);
    expect(String(toApiError(exists))).toBe('AlreadyExists: configmaps "y" already exists');
    await core.replaceNamespacedConfigMap({ namespace: ns, name: 'y', body: { ...created, data: { a: '2' } } });
    const conflict = await core
      .replaceNamespacedConfigMap({ namespace: ns, name: 'y', body: { ...created, data: { a: '3' } } })
      .catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect(isAlreadyExists(conflict)).toBe(false);
    expect(String(toApiError(conflict))).toMatch(
      /^Conflict: Operation cannot be fulfilled on configmaps "y": the object has been modified/,
    );
  });
});
