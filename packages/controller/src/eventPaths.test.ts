import { describe, expect, it } from '@jest/globals';
import { InvalidPathSegmentError, type KubeObject } from '@rxinformer/core';
import type { ApiRequest } from './apiClient.ts';
import { createEventRecorder } from './eventRecorder.ts';

const note = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'in sync' } as const;

describe("the event recorder's paths", () => {
  it('should fail, told to onError, the write of an Event whose namespace or name is not one path segment', async () => {
    const sent: string[] = [];
    const errors: unknown[] = [];
    const recorder = createEventRecorder({
      client: { request: <T>(req: ApiRequest) => (sent.push(`${req.method} ${req.path}`), Promise.resolve({} as T)) },
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      api: 'events.k8s.io/v1',
      onError: (e) => errors.push(e),
    });
    const regarding = (namespace: string, name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name },
    });
    recorder.event(regarding('..', 'x'), note); // POST …/namespaces/../events would create in the cluster's root
    recorder.event(regarding('a', 'b/c'), note); // created (its name is in the body), but its series…
    recorder.event(regarding('a', 'b/c'), note); // …would PATCH …/events/b/c.<time>
    await recorder.stop();
    expect(sent).toEqual(['POST /apis/events.k8s.io/v1/namespaces/a/events']);
    expect(errors).toEqual([expect.any(InvalidPathSegmentError), expect.any(InvalidPathSegmentError)]);
    expect((errors as InvalidPathSegmentError[]).map((e) => e.what)).toEqual(['namespace', 'name']);
  });
});
