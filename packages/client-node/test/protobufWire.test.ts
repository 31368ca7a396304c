/**
 * The protobuf wire (`wire: 'protobuf'`) against the simulator and a real kube-apiserver: the
 * objects and watch events decoded from kube-apiserver's protobuf equal, deeply, those its JSON
 * gives for every built-in descriptor and for rich pods, services, deployments, secrets, nodes,
 * events and leases; error answers give the same API errors; an informer over it converges. The
 * simulator answers JSON to the same Accept header (it decodes protobuf bodies, never writes
 * them): the wire then falls back to JSON, which the same cases check.
 */
import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, type Observable } from 'rxjs';
import {
  createSharedInformer,
  KubeApiError,
  WATCH_OPENED,
  type KubeObject,
  type ListerWatcher,
  type WatchEvent,
  type WatchItem,
} from '@rxinformer/core';
import type { HttpResponse } from '@rxinformer/core/http';
import {
  builtinResources,
  createKubeTransport,
  PROTOBUF_ACCEPT,
  PROTOBUF_MEDIA_TYPE,
  kubeConfigListerWatcher,
  pods,
  type KubeResource,
  type KubeTransport,
} from '../src/index.ts';
import { builtinObject, collectionPath } from './builtinObjects.ts';
import { podBody, serverWithKit, waitFor } from './simHarness.ts';
import { serverKinds } from '@rxinformer/testing/servers';

/** A transport that records each request's kind and Accept header, and its answer's Content-Type. */
function typedTransport(inner: KubeTransport): KubeTransport & { types: string[] } {
  const types: string[] = []; // `list|watch <accept> -> <content type>`
  return {
    ...inner,
    types,
    get: async (path, signal, kind, accept) => {
      const r: HttpResponse = await inner.get(path, signal, kind, accept);
      types.push(`${kind} ${accept ?? 'application/json'} -> ${r.header('content-type') ?? ''}`);
      return r;
    },
  };
}

/** Rich objects: the fields most likely to differ between the two wires. */
function richObjects(ns: string): [string, Record<string, unknown>][] {
  const labels = { app: 'rich' };
  return [
    [
      `/api/v1/namespaces/${ns}/pods`,
      {
        metadata: { name: 'rich', labels, annotations: { a: '' } },
        spec: {
          initContainers: [{ name: 'init', image: 'busybox', command: ['true'] }],
          containers: [
            {
              name: 'c',
              image: 'nginx',
              ports: [{ name: 'http', containerPort: 80 }],
              env: [
                { name: 'A', value: '' },
                { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1.5', memory: '1Gi' } },
              readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 3 },
              livenessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 0 },
              securityContext: { runAsNonRoot: false, runAsUser: 0, capabilities: { drop: ['ALL'] } },
              volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
            },
          ],
          volumes: [
            { name: 'v', configMap: { name: 'cm', defaultMode: 420, optional: true } },
            { name: 'e', emptyDir: { sizeLimit: '1Gi' } },
            { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] } },
          ],
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] }],
              },
            },
          },
          nodeSelector: { disk: 'ssd' },
          terminationGracePeriodSeconds: 0,
          serviceAccountName: 'default',
          hostAliases: [{ ip: '10.0.0.1', hostnames: ['x'] }],
        },
      },
    ],
    [
      `/api/v1/namespaces/${ns}/services`,
      {
        metadata: { name: 'rich', labels },
        spec: {
          selector: labels,
          ports: [
            { name: 'web', port: 80, targetPort: 'http' },
            { name: 'alt', port: 81, targetPort: 8081, protocol: 'UDP' },
          ],
        },
      },
    ],
    [
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      {
        metadata: { name: 'rich', labels },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
          template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    ],
    [
      `/api/v1/namespaces/${ns}/secrets`,
      { metadata: { name: 'rich', labels }, type: 'Opaque', data: { bin: Buffer.from([0, 255, 1]).toString('base64'), empty: '' } },
    ],
    [
      `/api/v1/namespaces/${ns}/configmaps`,
      { metadata: { name: 'rich', labels }, data: { e: '', u: 'ünï ☃' }, binaryData: { b: 'AAE=' }, immutable: false },
    ],
    [
      `/api/v1/nodes`,
      {
        metadata: { name: `rich-${ns}`, labels },
        spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }], podCIDR: '10.1.0.0/24' },
        status: {
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' }],
        },
      },
    ],
    [
      `/api/v1/namespaces/${ns}/events`,
      {
        metadata: { name: 'rich', labels },
        involvedObject: { kind: 'Pod', namespace: ns, name: 'rich' },
        reason: 'R',
        type: 'Warning',
        count: 3,
        firstTimestamp: '2026-01-01T00:00:00Z',
      },
    ],
    [
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
      {
        metadata: { name: 'rich', labels },
        spec: { holderIdentity: 'h', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.123456Z', leaseTransitions: 0 },
      },
    ],
  ];
}

/** Every event of `watch` (bookmarks aside) until `n` objects were seen deleted. */
function eventsUntilDeleted(
  watch: Observable<WatchItem<KubeObject>>,
  n: number,
  opened: { count: number },
): Promise<WatchEvent<KubeObject>[]> {
  return new Promise((resolve, reject) => {
    const events: WatchEvent<KubeObject>[] = [];
    let deleted = 0;
    const sub = watch.subscribe({
      next: (item) => {
        if (deleted === n) return; // an event of the same chunk after the last deletion: not this case's
        if (item === WATCH_OPENED) {
          opened.count++;
          return;
        }
        const e = item as WatchEvent<KubeObject>;
        if (e.type === 'BOOKMARK') return;
        events.push(e);
        if (e.type === 'DELETED' && ++deleted === n) {
          resolve(events);
          queueMicrotask(() => sub.unsubscribe());
        }
      },
      error: reject,
      complete: () => reject(new Error(`the watch ended after ${deleted} of ${n} deletions`)),
    });
  });
}

describe.each(serverKinds())('the protobuf wire against the %s server', (kind) => {
  const env = serverWithKit(kind, { sim: { seed: 11 } });
  const protobufAnswers = kind === 'real';

  it('should decode lists and watch events of every built-in kind into the objects JSON gives', async () => {
    const ns = await env.server.namespace('pb');
    const kc = env.server.kubeConfig();
    const inner = createKubeTransport(kc);
    const transport = typedTransport(inner);
    const served = builtinResources.filter((r) => r.resource !== 'customresourcedefinitions' && r.resource !== 'namespaces');
    const made: { r: KubeResource | undefined; path: string; collection: string }[] = [];
    for (const r of served) {
      const name = `pb-${r.group ? `${r.group.split('.')[0]}-` : ''}${r.resource}${r.namespaced ? '' : `-${ns}`}`;
      await env.server.api.create(collectionPath(r, ns), builtinObject(r, name, ns));
      made.push({ r, path: `${collectionPath(r, ns)}/${name}`, collection: collectionPath(r, ns) });
    }
    for (const [collection, object] of richObjects(ns)) {
      await env.server.api.create(collection, object);
      made.push({ r: undefined, path: `${collection}/${(object.metadata as { name: string }).name}`, collection });
    }
    const collections = [...new Set(made.map((m) => m.collection))];
    const lw = (path: string, wire: 'json' | 'protobuf'): ListerWatcher<KubeObject> =>
      kubeConfigListerWatcher(kc, { path, transport, wire, labelSelector: 'app in (every,rich)' });
    const watches: Promise<[unknown, unknown]>[] = [];
    const opened = { count: 0 };
    for (const path of collections) {
      const json = await firstValueFrom(lw(path, 'json').list({}));
      const protobuf = await firstValueFrom(lw(path, 'protobuf').list({}));
      expect([path, protobuf.items]).toStrictEqual([path, json.items]);
      const n = made.filter((m) => m.collection === path).length;
      const from = { resourceVersion: json.metadata!.resourceVersion!, allowWatchBookmarks: false };
      watches.push(
        Promise.all([
          eventsUntilDeleted(lw(path, 'json').watch(from), n, opened),
          eventsUntilDeleted(lw(path, 'protobuf').watch(from), n, opened),
        ]),
      );
    }
    expect(await waitFor(() => opened.count === 2 * collections.length, 60_000)).toBe(true);
    await Promise.all(
      made.map(async (m) => {
        await env.server.api.patch(m.path, { metadata: { labels: { touched: 'yes' } } });
        await env.server.api.delete(m.path, { force: true });
      }),
    );
    for (const [json, protobuf] of await Promise.all(watches)) expect(protobuf).toStrictEqual(json);
    // Asked for as client-go asks; kube-apiserver answers protobuf, the simulator JSON.
    const asked = `${PROTOBUF_ACCEPT} -> ${protobufAnswers ? PROTOBUF_MEDIA_TYPE : 'application/json'}`;
    const count = (t: string) => transport.types.filter((x) => x === t).length;
    expect([count(`list ${asked}`), count(`watch ${asked}${protobufAnswers ? ';stream=watch' : ''}`)]).toEqual([
      collections.length,
      collections.length,
    ]);
    await inner.close();
  }, 120_000);

  it('should give the same API error as JSON for an error answer', async () => {
    const kc = env.server.kubeConfig();
    const errorOf = (wire: 'json' | 'protobuf') =>
      firstValueFrom(kubeConfigListerWatcher(kc, { resource: pods, wire }).list({ limit: 1, continue: 'not-a-token' })).catch(
        (e: unknown) => e,
      );
    const [json, protobuf] = [await errorOf('json'), await errorOf('protobuf')];
    expect(json).toBeInstanceOf(KubeApiError);
    expect(protobuf).toBeInstanceOf(KubeApiError);
    const fields = (e: KubeApiError) => [e.code, e.reason, e.message];
    expect(fields(protobuf as KubeApiError)).toEqual(fields(json as KubeApiError));
  });

  it('should keep an informer over protobuf equal to the server through creates, updates and deletes', async () => {
    const ns = await env.server.namespace('pbinf');
    const path = `/api/v1/namespaces/${ns}/pods`;
    for (let i = 0; i < 10; i++) await env.server.api.create(path, podBody(`p${i}`, { i: String(i) }));
    const informer = createSharedInformer(
      kubeConfigListerWatcher(env.server.kubeConfig(), { resource: pods, namespace: ns, wire: 'protobuf' }),
    );
    informer.start();
    try {
      for (let i = 10; i < 15; i++) await env.server.api.create(path, podBody(`p${i}`));
      for (let i = 0; i < 5; i++) await env.server.api.patch(`${path}/p${i}`, { metadata: { labels: { i: 'changed' } } });
      for (let i = 5; i < 8; i++) await env.server.api.delete(`${path}/p${i}`, { force: true });
      const server = async () => {
        const list = (await env.server.api.get(path)) as { items: KubeObject[] };
        return list.items
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort()
          .join();
      };
      const cached = () =>
        informer
          .getStore()
          .list()
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort()
          .join();
      expect(await waitFor(async () => cached() === (await server()), 60_000)).toBe(true);
      expect(informer.getStore().get(`${ns}/p0`)?.metadata?.labels).toEqual({ i: 'changed' });
    } finally {
      informer.stop();
    }
  }, 90_000);
});
