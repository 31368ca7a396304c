import { describe, expect, it } from '@jest/globals';
import { InvalidPathSegmentError, type KubeObject } from '@rxinformer/core';
import type { ApiRequest } from '../client/apiClient.ts';
import { createEventRecorder } from './eventRecorder.ts';

const note = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'in sync' } as const;

describe("the event recorder's paths", () => {
  it('should fail, told to onError, the write of an Event whose namespace is not one path segment, and name Events as one', async () => {
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
    recorder.event(regarding('a', 'b/c'), note); // created: the Event's own name is made a DNS subdomain…
    recorder.event(regarding('a', 'b/c'), note); // …so its series' PATCH names one path segment, never …/events/b/c.<time>
    await recorder.stop();
    expect(sent).toEqual([
      'POST /apis/events.k8s.io/v1/namespaces/a/events',
      expect.stringMatching(/^PATCH \/apis\/events\.k8s\.io\/v1\/namespaces\/a\/events\/b-c\.[0-9a-f]+-[0-9a-z]+$/),
    ]);
    expect(errors).toEqual([expect.any(InvalidPathSegmentError)]);
    expect((errors as InvalidPathSegmentError[]).map((e) => e.what)).toEqual(['namespace']);
  });
});
