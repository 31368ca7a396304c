/**
 * What the typed descriptors' objects are: the wire's JSON, each timestamp the server's RFC 3339
 * string where client-node's models declare a `Date` (`Wire<V1Pod>`). `wireTypeChecks` is only
 * type-checked (`tsc -b` fails if an expected error is missing); the test reads real objects of
 * both servers and finds a string in every field client-node types as a `Date`, and writes one
 * back as read.
 */
import { describe, expect, it } from '@jest/globals';
import * as clientNode from '@kubernetes/client-node';
import type { KubernetesObject, V1Lease, V1Pod } from '@kubernetes/client-node';
import { controllerFor, resourceApi, type ApiClient } from '@rxinformer/controller';
import type { KubeObject, SharedInformer, Wire } from '@rxinformer/core';
import { serverKinds } from '@rxinformer/testing/servers';
import {
  customResourceDefinitions,
  defineResource,
  eventsV1,
  kubeApiClient,
  leases,
  pods,
  services,
  type KubeInformerFactory,
} from '../src/index.ts';
import { builtinObject } from './builtinObjects.ts';
import { podBody, serverWithKit } from './simHarness.ts';

/** A CRD's type as a user writes it, with client-node's `KubernetesObject` (whose metadata has `Date`s). */
interface Widget extends KubernetesObject {
  spec?: { size: number; since?: Date };
}

/** Only type-checked: reads, the builder's objects and writes, all of the cache's type. */
export function wireTypeChecks(factory: KubeInformerFactory, client: ApiClient): unknown[] {
  const podInformer = factory.informerFor(pods);
  const pod = podInformer.getStore().list()[0];
  const lease = factory.informerFor(leases).getStore().list()[0];
  const service = factory.informerFor(services).getStore().list()[0];
  const crd = factory.informerFor(customResourceDefinitions).getStore().list()[0];
  const widgets = defineResource<Widget>({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
  const widget = factory.informerFor(widgets).getStore().list()[0];
  const informer: SharedInformer<Wire<V1Pod>> = podInformer;
  const created: string | undefined = pod.metadata?.creationTimestamp;
  const port: number | string | undefined = service.spec?.ports?.[0].targetPort; // IntOrString as it was
  const ctl = controllerFor(factory, pods, { name: 'wire', client }).reconcile(async ({ object, api }) => {
    // @ts-expect-error the builder's objects are the cache's: a string
    object?.metadata?.creationTimestamp?.getTime();
    if (object) await api(pods).update(object, (d) => void (d.metadata!.annotations = { seen: d.metadata?.creationTimestamp ?? '' }));
    await api(pods).applyStatus({ metadata: { name: 'p' }, status: { startTime: new Date().toISOString() } }, { fieldManager: 'm' });
    // @ts-expect-error a write takes the same type: a Date's toISOString(), not the Date
    await api(pods).applyStatus({ metadata: { name: 'p' }, status: { startTime: new Date() } }, { fieldManager: 'm' });
  });
  return [
    informer,
    created,
    port,
    ctl,
    Date.parse(pod.metadata?.creationTimestamp ?? ''),
    // @ts-expect-error a timestamp is the wire's string, not a Date
    pod.metadata?.creationTimestamp?.getTime(),
    // @ts-expect-error however deep: a condition's
    pod.status?.conditions?.[0].lastTransitionTime?.toISOString(),
    pod.status?.conditions?.[0].lastTransitionTime?.endsWith('Z'),
    // @ts-expect-error a Lease's MicroTime too
    lease.spec?.renewTime?.getTime(),
    // @ts-expect-error a CRD's own Date field, and its metadata's
    widget.spec?.since?.getTime() ?? widget.metadata?.creationTimestamp?.getTime(),
    crd.spec.versions[0].schema?.openAPIV3Schema?._default.whatever, // `any` stays `any`
    resourceApi(client, pods).update(pod, (d) => void (d.spec!.activeDeadlineSeconds = 5)), // what is read is written back
    factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }).then((i) => {
      // @ts-expect-error discovered resources' objects alike
      return i.getStore().list()[0].metadata?.creationTimestamp?.getTime();
    }),
    // @ts-expect-error client-node's V1Pod (its Dates) is not what the cache holds
    ((i: SharedInformer<V1Pod>) => i)(podInformer),
  ];
}

/** An attribute of a client-node model class: its JSON name and its type name (`Date`, `Array<V1PodCondition>`, `V1ObjectMeta`…). */
interface ModelAttribute {
  readonly baseName: string;
  readonly type: string;
}
const models = clientNode as unknown as Record<string, { attributeTypeMap?: readonly ModelAttribute[] } | undefined>;

/** client-node's type names of a `Date` in its attribute maps: Time, and MicroTime (`V1MicroTime extends Date`). */
const DATE_TYPES = new Set(['Date', 'V1MicroTime']);

/** Every field of `value` that client-node's model `type` declares a `Date`, as `[path, value]`, walked by its attribute maps. */
function dateFields(value: unknown, type: string, path = ''): [string, unknown][] {
  const attributes = models[type]?.attributeTypeMap;
  if (!attributes || typeof value !== 'object' || value === null) return [];
  return attributes.flatMap(({ baseName, type: t }): [string, unknown][] => {
    const v = (value as Record<string, unknown>)[baseName];
    const at = `${path}${baseName}`;
    const element = /^Array<(.+)>$/.exec(t)?.[1];
    if (v === undefined || v === null) return [];
    if (element === undefined) return DATE_TYPES.has(t) ? [[at, v]] : dateFields(v, t, `${at}.`);
    if (!Array.isArray(v)) return [[at, v]]; // not the array the model declares: shown to fail below
    return v.flatMap((e: unknown, i) =>
      DATE_TYPES.has(element) ? [[`${at}.${i}`, e] as [string, unknown]] : dateFields(e, element, `${at}.${i}.`),
    );
  });
}

const SECOND = '2026-01-02T03:04:05Z';
const MICRO = '2026-01-02T03:04:05.123456Z';

describe.each(serverKinds())('the typed informers’ objects on the %s server', (kind) => {
  const env = serverWithKit(kind);

  it('should hold a string wherever client-node declares a Date, and write it back unchanged', async () => {
    const ns = await env.server.namespace('wire');
    const podPath = `/api/v1/namespaces/${ns}/pods`;
    await env.server.api.create(podPath, podBody('p'));
    const condition = { type: 'Ready', status: 'False', lastProbeTime: SECOND, lastTransitionTime: SECOND };
    await env.server.api.patch(`${podPath}/p/status`, { status: { startTime: SECOND, conditions: [condition] } });
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    await env.server.api.create(leasePath, {
      metadata: { name: 'l' },
      spec: { holderIdentity: 'a', acquireTime: MICRO, renewTime: MICRO },
    });
    await env.server.api.create(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, builtinObject(eventsV1, 'e', ns));
    const { factory } = env.kit.open({ namespace: ns });
    const informers = {
      V1Pod: factory.informerFor(pods),
      V1Lease: factory.informerFor(leases),
      EventsV1Event: factory.informerFor(eventsV1),
    };
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 30_000 });
    const held = (model: keyof typeof informers) => informers[model].getStore().list() as KubeObject[];

    const found = Object.fromEntries(
      (Object.keys(informers) as (keyof typeof informers)[]).map((model) => [model, held(model).flatMap((o) => dateFields(o, model))]),
    );
    const paths = (model: string) => found[model].map(([path]) => path);
    expect(paths('V1Pod')).toEqual(
      expect.arrayContaining(['metadata.creationTimestamp', 'status.startTime', 'status.conditions.0.lastTransitionTime']),
    );
    expect(paths('V1Pod').some((p) => /^metadata\.managedFields\.\d+\.time$/.test(p))).toBe(true);
    expect(paths('V1Lease')).toEqual(expect.arrayContaining(['spec.acquireTime', 'spec.renewTime']));
    expect(paths('EventsV1Event')).toContain('eventTime');
    const notStrings = Object.values(found)
      .flat()
      .filter(([, v]) => typeof v !== 'string');
    expect(notStrings).toEqual([]);

    // A MicroTime keeps its microseconds (a Date would drop them), and goes back as it came.
    const lease = informers.V1Lease.getStore().list()[0];
    expect(lease.spec?.renewTime).toBe(MICRO);
    const api = resourceApi(kubeApiClient(env.server.kubeConfig()), leases);
    const renewed: Wire<V1Lease> = await api.update(lease, (d) => void (d.spec!.holderIdentity = 'b'));
    expect([renewed.spec?.holderIdentity, renewed.spec?.renewTime, renewed.spec?.acquireTime]).toEqual(['b', MICRO, MICRO]);
    await factory.close();
  }, 60_000);
});
