/**
 * Status conditions of a custom resource written through the controller's writes (the status
 * subresource) and read back, on the simulator and on a real kube-apiserver, whose CRD validates
 * them with metav1.Condition's schema (controller-gen's).
 */
import { describe, expect, it } from '@jest/globals';
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import { installCRDs, type CustomResourceDefinition } from '@rxinformer/envtest';
import { serverKinds } from '@rxinformer/testing/servers';
import {
  fetchApiClient,
  isStatusConditionTrue,
  removeStatusCondition,
  resourceApi,
  setStatusCondition,
  statusConditions,
  type Condition,
} from '../src/index.ts';
import { counting, serverSuite } from './kit.ts';

interface Widget extends KubeObject {
  spec?: { size: number };
  status?: { conditions?: Condition[] };
}

const widgets: ResourceDescriptor<Widget> = {
  group: 'conditions.example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

/** metav1.Condition's schema, as controller-gen writes it for `[]metav1.Condition`. */
const conditionSchema = {
  type: 'object',
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  properties: {
    lastTransitionTime: { type: 'string', format: 'date-time' },
    message: { type: 'string', maxLength: 32768 },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    reason: { type: 'string', maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    type: {
      type: 'string',
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
  },
};

const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.conditions.example.com' },
  spec: {
    group: 'conditions.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: {
                  conditions: {
                    type: 'array',
                    items: conditionSchema,
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const T0 = '2026-03-01T10:00:00Z';
const T1 = '2026-03-01T10:05:00Z';
const T2 = '2026-03-01T10:09:00Z';
/** A clock at `iso` and 250 ms. */
const at = (iso: string) => ({ scheduler: { now: () => Date.parse(iso) + 250 } });

describe.each(serverKinds())('status conditions of a custom resource on the %s server', (kind) => {
  const suite = serverSuite(kind, 'conditions');

  it('should write them through the status subresource, moving lastTransitionTime only when the status changes', async () => {
    await installCRDs(suite.server.directKubeConfig(), { objects: [widgetCrd] });
    const client = counting(fetchApiClient(suite.server.fetchOptions()));
    const api = resourceApi(client, widgets);
    const created = await api.create({
      apiVersion: 'conditions.example.com/v1',
      kind: 'Widget',
      metadata: { namespace: suite.ns, name: 'w' },
      spec: { size: 0 },
    });
    const generation = created.metadata!.generation!;

    const creating = await api.updateStatus(created, (d) => {
      setStatusCondition(
        statusConditions(d),
        { type: 'Ready', status: 'False', reason: 'Creating', observedGeneration: generation },
        at(T0),
      );
      setStatusCondition(
        statusConditions(d),
        { type: 'example.com/Sized', status: 'Unknown', reason: 'Pending', message: 'no size yet' },
        at(T0),
      );
    });
    expect(client.sent.at(-1)).toMatchObject({
      method: 'PATCH',
      path: `/apis/conditions.example.com/v1/namespaces/${suite.ns}/widgets/w/status`,
    });
    const first: Condition[] = [
      { type: 'Ready', status: 'False', observedGeneration: generation, lastTransitionTime: T0, reason: 'Creating', message: '' },
      { type: 'example.com/Sized', status: 'Unknown', lastTransitionTime: T0, reason: 'Pending', message: 'no size yet' },
    ];
    expect(creating.status?.conditions).toEqual(first);
    expect((await api.get({ namespace: suite.ns, name: 'w' })).status?.conditions).toEqual(first);
    expect(creating.metadata!.generation).toBe(generation); // a status write is no spec change

    // The same status, another reason: updated in place, the transition time kept.
    const resized = await api.updateStatus(creating, (d) => {
      setStatusCondition(
        statusConditions(d),
        { type: 'Ready', status: 'False', reason: 'Resizing', message: 'to 3', observedGeneration: generation },
        at(T1),
      );
    });
    expect(resized.status?.conditions?.[0]).toEqual({ ...first[0], reason: 'Resizing', message: 'to 3' });

    // Nothing new: nothing sent.
    const before = client.sent.length;
    const same = await api.updateStatus(resized, (d) => {
      setStatusCondition(
        statusConditions(d),
        { type: 'Ready', status: 'False', reason: 'Resizing', message: 'to 3', observedGeneration: generation },
        at(T2),
      );
    });
    expect(same).toBe(resized);
    expect(client.sent.length).toBe(before);

    // A spec change moves the generation; the condition catches up with a new status: a new transition time.
    const grown = await api.update(resized, (d) => void (d.spec = { size: 3 }));
    expect(grown.metadata!.generation).toBe(generation + 1);
    const ready = await api.updateStatus(grown, (d) => {
      setStatusCondition(
        statusConditions(d),
        { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 3', observedGeneration: grown.metadata!.generation },
        at(T2),
      );
      removeStatusCondition(statusConditions(d), 'example.com/Sized');
    });
    const read = await api.get({ namespace: suite.ns, name: 'w' });
    expect(read.status?.conditions).toEqual([
      { type: 'Ready', status: 'True', observedGeneration: generation + 1, lastTransitionTime: T2, reason: 'Sized', message: 'size 3' },
    ]);
    expect(read.metadata!.resourceVersion).toBe(ready.metadata!.resourceVersion);
    expect(isStatusConditionTrue(read.status?.conditions, 'Ready')).toBe(true);
  });
});
