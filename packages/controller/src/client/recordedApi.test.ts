import { describe, expect, it } from '@jest/globals';
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import type { ApiClient, ApiRequest } from './apiClient.ts';
import { recordedApi, type WriteOutcome } from './recordedApi.ts';
import { resourceApi } from './resourceApi.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const pod = (rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'ns', name: 'p', uid: 'u', resourceVersion: rv, ...extra },
});

/** A recorded pods API over a client answering `answer(req)`, and what it recorded. */
function setup(answer: (req: ApiRequest) => unknown) {
  const client: ApiClient = { request: async <T>(req: ApiRequest) => answer(req) as T };
  const outcomes: WriteOutcome<KubeObject>[] = [];
  const api = recordedApi(resourceApi(client, pods), (o) => outcomes.push(o));
  return { api, outcomes };
}

describe('recordedApi', () => {
  it('should record each stored write with the object the server answered, and no read', async () => {
    const { api, outcomes } = setup((req) => (req.method === 'GET' ? pod('1') : pod('2')));
    await api.get({ namespace: 'ns', name: 'p' });
    await api.mergePatch({ namespace: 'ns', name: 'p' }, { metadata: { labels: { a: 'b' } } });
    await api.apply({ metadata: { namespace: 'ns', name: 'p' } }, { fieldManager: 'me' });
    await api.createOrUpdate(pod('1'), (d) => void (d.metadata!.labels = { x: 'y' }));
    expect(outcomes).toEqual([{ object: pod('2') }, { object: pod('2') }, { object: pod('2') }]);
  });

  it('should not record a dry run', async () => {
    const { api, outcomes } = setup(() => pod('2'));
    await api.create(pod(''), { dryRun: true });
    await api.mergePatch({ namespace: 'ns', name: 'p' }, {}, { dryRun: true });
    expect(outcomes).toEqual([]);
  });

  it('should record a delete as gone (or going) whatever it was answered with, with the uid the answer names', async () => {
    let answer: unknown = { kind: 'Status', apiVersion: 'v1', status: 'Success' };
    const { api, outcomes } = setup(() => answer);
    await api.delete({ namespace: 'ns', name: 'p' });
    answer = { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'p', kind: 'pods', uid: 'u' } };
    await api.delete({ namespace: 'ns', name: 'p' });
    answer = pod('3'); // the removed object returned as it was
    await api.delete({ namespace: 'ns', name: 'p' });
    answer = pod('4', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] }); // still being finalized
    await api.delete({ namespace: 'ns', name: 'p' });
    answer = pod('5', { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }); // a pod already gone
    await api.delete({ namespace: 'ns', name: 'p' });
    const gone = { namespace: 'ns', name: 'p' };
    expect(outcomes).toEqual([{ gone }, ...[1, 2, 3, 4].map(() => ({ gone, uid: 'u' }))]);
  });

  it('should record nothing for a write that failed', async () => {
    const { api, outcomes } = setup(() => {
      throw new Error('boom');
    });
    await expect(api.replace(pod('1'))).rejects.toThrow();
    expect(outcomes).toEqual([]);
  });
});
