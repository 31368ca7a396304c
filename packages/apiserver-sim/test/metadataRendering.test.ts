/**
 * Metadata-only requests, as the API server answers them: `as=PartialObjectMetadataList` on a list,
 * `as=PartialObjectMetadata` on a get and on a watch (its bookmarks too), the media types of the
 * Accept header tried by preference, and 406 for conversions not served.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { pod } from '@rxinformer/testing';
import { openWatch, req } from './helpers.ts';

const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

describe('PartialObjectMetadata', () => {
  let sim: ApiServer;
  let base: string;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 4, bookmarkIntervalMs: 50 });
    base = `${sim.url}/api/v1/namespaces/default/pods`;
    for (const name of ['a', 'b', 'c']) sim.storage.create('pods', pod(name, { labels: { app: name } }), 'default');
  });
  afterAll(() => sim.close());

  it('should list PartialObjectMetadataList: each item its metadata only, typed, with the list metadata and paging', async () => {
    const r = await req(`${base}?limit=2`, { headers: { Accept: LIST } });
    expect(r.code).toBe(200);
    expect(r.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
    expect(r.body.metadata.resourceVersion).toBe(sim.storage.resourceVersion);
    expect(r.body.metadata.continue).toEqual(expect.any(String));
    const stored = sim.storage.get('pods', 'default', 'a');
    expect(r.body.items[0]).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: stored.metadata });
    const next = await req(`${base}?limit=2&continue=${encodeURIComponent(r.body.metadata.continue)}`, { headers: { Accept: LIST } });
    expect(next.body.items.map((i: any) => [i.kind, i.metadata.name])).toEqual([['PartialObjectMetadata', 'c']]);
  });

  it('should get PartialObjectMetadata', async () => {
    const r = await req(`${base}/b`, { headers: { Accept: ONE } });
    expect(r.code).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(r.body).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'b', labels: { app: 'b' } } });
  });

  it('should watch PartialObjectMetadata: events and bookmarks', async () => {
    const w = await openWatch(`${base}?watch=true&allowWatchBookmarks=true&resourceVersion=${sim.storage.resourceVersion}`, {
      Accept: ONE,
    });
    try {
      sim.storage.create('pods', pod('d', { labels: { app: 'd' } }), 'default');
      const events = await w.waitFor(2);
      const added = events.find((e) => e.type === 'ADDED')!;
      expect(added.object).toEqual({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: sim.storage.get('pods', 'default', 'd').metadata,
      });
      const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
      expect(bookmark.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    } finally {
      w.close();
    }
  });

  it('should take the first media type it serves, by preference', async () => {
    const fallback = await req(base, {
      headers: { Accept: `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1;q=0.9,${LIST}` },
    });
    expect(fallback.body.kind).toBe('PartialObjectMetadataList');
    const full = await req(base, { headers: { Accept: `application/json;as=Nothing;g=meta.k8s.io;v=v1,application/json` } });
    expect(full.body.kind).toBe('PodList');
    const preferred = await req(base, { headers: { Accept: `application/json;q=0.5,${LIST}` } });
    expect(preferred.body.kind).toBe('PartialObjectMetadataList');
  });

  it('should answer 406 to conversions it does not serve', async () => {
    for (const accept of [
      ONE,
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2',
      'application/json;as=Widget;g=meta.k8s.io;v=v1',
    ]) {
      const r = await req(base, { headers: { Accept: accept } });
      expect({ accept, code: r.code, reason: r.body.reason }).toEqual({ accept, code: 406, reason: 'NotAcceptable' });
    }
    expect((await req(`${base}/a`, { headers: { Accept: LIST } })).code).toBe(406);
    const watch = await req(`${base}?watch=true`, { headers: { Accept: LIST } });
    expect(watch.code).toBe(406);
  });
});
