/**
 * The writes against the simulator and a real kube-apiserver, through fetch: immer drafts as JSON
 * Patch with a resourceVersion test, merge patch, apply, status, createOrUpdate, delete, retries.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { ApiError, fetchApiClient, isConflict, isNotFound, refOf, resourceApi, retryOnConflict, type ResourceApi } from '../src/index.ts';
import { configMaps, counting, pods, type ConfigMap } from './kit.ts';

describe.each(serverKinds())('writes against the %s server', (kind) => {
  let server: TestServer;
  let ns: string;
  let client: ReturnType<typeof counting>;
  let cms: ResourceApi<ConfigMap>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    ns = await server.namespace('writes');
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());
  const fresh = () => {
    client = counting(fetchApiClient(server.fetchOptions()));
    cms = resourceApi(client, configMaps);
  };
  const cm = (name: string, data: Record<string, string> = { a: '1' }): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: ns, name },
    data,
  });

  it('should send a draft as a JSON Patch of what changed, on condition of its resourceVersion, and nothing for no change', async () => {
    fresh();
    const created = await cms.create(cm('draft'));
    const updated = await cms.update(created, (d) => {
      d.metadata!.labels = { 'example.com/tier': 'gold' };
      d.data!.b = '2';
    });
    expect(updated.metadata!.labels).toEqual({ 'example.com/tier': 'gold' });
    expect(updated.data).toEqual({ a: '1', b: '2' });
    expect(updated.metadata!.resourceVersion).not.toBe(created.metadata!.resourceVersion);
    const patch = client.sent.at(-1)!;
    expect(patch).toMatchObject({ method: 'PATCH', contentType: 'application/json-patch+json' });
    const changes = (patch.body as unknown[]).slice(0, -1);
    expect((patch.body as unknown[]).at(-1)).toEqual({
      op: 'add',
      path: '/metadata/resourceVersion',
      value: created.metadata!.resourceVersion,
    });
    expect(changes).toHaveLength(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/metadata/labels', value: { 'example.com/tier': 'gold' } },
        { op: 'add', path: '/data/b', value: '2' },
      ]),
    );
    const before = client.sent.length;
    expect(await cms.update(updated, (d) => void (d.data!.a = '1'))).toBe(updated);
    expect(client.sent.length).toBe(before);
    // A label key with / that exists: escaped pointers, replaced and removed.
    const again = await cms.update(updated, (d) => {
      d.metadata!.labels!['example.com/tier'] = 'silver';
      delete d.data!.a;
    });
    expect(again.metadata!.labels).toEqual({ 'example.com/tier': 'silver' });
    expect(again.data).toEqual({ b: '2' });
  });

  it('should refuse a draft of a stale object with a typed Conflict, and retryOnConflict should re-read and win', async () => {
    fresh();
    const created = await cms.create(cm('stale'));
    await cms.update(created, (d) => void (d.data!.a = 'other writer'));
    const stale = cms.update(created, (d) => void (d.data!.a = 'mine'));
    await expect(stale).rejects.toBeInstanceOf(ApiError);
    const error = await stale.catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    expect(String(error)).toMatch(/^Conflict: Operation cannot be fulfilled on configmaps "stale": the object has been modified/);
    let attempts = 0;
    const won = await retryOnConflict(
      async () => {
        const current = await cms.get({ namespace: ns, name: 'stale' });
        // Another writer gets in between the first read and its write.
        if (++attempts === 1) await cms.update(current, (d) => void (d.data!.n = 'racer'));
        return cms.update(current, (d) => void (d.data!.a = 'mine'));
      },
      { backoff: { durationMs: 0 } },
    );
    expect(attempts).toBe(2);
    expect(won.data).toEqual({ a: 'mine', n: 'racer' });
  });

  it.each<[string, (d: ConfigMap) => ConfigMap | void]>([
    [
      'returns a new object',
      (d) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: d.metadata!.name }, data: { a: 'mine' } }),
    ],
    ['replaces metadata', (d) => void ((d.metadata = { namespace: ns, name: d.metadata!.name, labels: { l: 'v' } }), (d.data!.a = 'mine'))],
    ['deletes the resourceVersion', (d) => void (delete d.metadata!.resourceVersion, (d.data!.a = 'mine'))],
    ['changes the resourceVersion', (d) => void ((d.metadata!.resourceVersion = '1'), (d.data!.a = 'mine'))],
  ])('should refuse a stale draft whose recipe %s with a Conflict, keeping the other write', async (what, recipe) => {
    fresh();
    const created = await cms.create(cm(`stale-${what.split(' ')[0]}`));
    await cms.update(created, (d) => void (d.data!.a = 'other writer'));
    const error = await cms.update(created, recipe).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    expect((await cms.get(refOf(created))).data).toEqual({ a: 'other writer' });
  });

  it('should change arrays whole: finalizers added and removed', async () => {
    fresh();
    const created = await cms.create({ ...cm('arrays'), metadata: { namespace: ns, name: 'arrays', finalizers: ['example.com/a'] } });
    const more = await cms.update(created, (d) => void d.metadata!.finalizers!.push('example.com/b', 'example.com/c'));
    expect(more.metadata!.finalizers).toEqual(['example.com/a', 'example.com/b', 'example.com/c']);
    const fewer = await cms.update(more, (d) => void d.metadata!.finalizers!.splice(0, 2));
    expect(fewer.metadata!.finalizers).toEqual(['example.com/c']);
    expect(client.sent.at(-1)!.body).toContainEqual({ op: 'replace', path: '/metadata/finalizers', value: ['example.com/c'] });
    await cms.update(fewer, (d) => void delete d.metadata!.finalizers);
  });

  it('should merge-patch, apply with a field manager (conflict, then force), and createOrUpdate', async () => {
    fresh();
    const merged = await cms.mergePatch(
      { namespace: ns, name: (await cms.create(cm('merge', { a: '1', b: '2' }))).metadata!.name! },
      { data: { a: null, c: '3' } },
    );
    expect(merged.data).toEqual({ b: '2', c: '3' });
    const applied = await cms.apply(cm('ssa', { owned: 'alice' }), { fieldManager: 'alice' });
    expect(applied.data).toEqual({ owned: 'alice' });
    const conflict = await cms.apply(cm('ssa', { owned: 'bob' }), { fieldManager: 'bob' }).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(isConflict(conflict)).toBe(true);
    expect((await cms.apply(cm('ssa', { owned: 'bob' }), { fieldManager: 'bob', force: true })).data).toEqual({ owned: 'bob' });
    expect(() => cms.apply(cm('ssa'), { fieldManager: '' })).toThrow(/fieldManager/);

    const desired = cm('cou', { v: '1' });
    const set = (v: string) => (d: ConfigMap) => void (d.data = { v });
    expect(await cms.createOrUpdate(desired, set('1'))).toMatchObject({ result: 'created', object: { data: { v: '1' } } });
    expect(await cms.createOrUpdate(desired, set('1'))).toMatchObject({ result: 'unchanged' });
    expect(await cms.createOrUpdate(desired, set('2'))).toMatchObject({ result: 'updated', object: { data: { v: '2' } } });
  });

  it('should delete with preconditions: a stale resourceVersion is a Conflict, then the object is gone', async () => {
    fresh();
    const created = await cms.create(cm('del'));
    const updated = await cms.update(created, (d) => void (d.data!.a = '2'));
    const refused = await cms
      .delete(created.metadata as { name: string; namespace: string }, {
        preconditions: { resourceVersion: created.metadata!.resourceVersion },
      })
      .catch((e: unknown) => e);
    expect(isConflict(refused)).toBe(true);
    await cms.delete(
      { namespace: ns, name: 'del' },
      { preconditions: { uid: updated.metadata!.uid, resourceVersion: updated.metadata!.resourceVersion } },
    );
    const gone = await cms.get({ namespace: ns, name: 'del' }).catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
    expect(String(gone)).toBe('NotFound: configmaps "del" not found');
  });

  it('should write the status subresource with a draft and with apply', async () => {
    fresh();
    const podApi = resourceApi(client, pods);
    const pod = await podApi.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { namespace: ns, name: 'status' },
      spec: { containers: [{ name: 'app', image: 'example.com/app:1' }] },
    });
    const drafted = await podApi.updateStatus(pod, (d) => void (d.status = { ...d.status, message: 'drafted' }));
    expect(client.sent.at(-1)!.path).toMatch(/\/pods\/status\/status$/);
    expect(drafted.status?.message).toBe('drafted');
    const applied = await podApi.applyStatus(
      { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name: 'status' }, status: { message: 'applied' } },
      { fieldManager: 'ctl', force: true },
    );
    expect(applied.status?.message).toBe('applied');
  });
});
