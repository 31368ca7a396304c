import { kubeApiClient } from '@rxinformer/client-node';
import { findStatusCondition, resourceApi, type ResourceApi } from '@rxinformer/controller';
import { consistently, eventually, startTestEnvironment, type TestEnvironment } from '@rxinformer/envtest';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startWidgetController, widgets, type Widget, type WidgetController } from './widgetController.ts';

let env: TestEnvironment;
let controller: WidgetController;
let api: ResourceApi<Widget>;
before(async () => {
  // A real kube-apiserver with the folder's CRDs served (or, with USE_EXISTING_CLUSTER=true, your cluster).
  env = await startTestEnvironment({ crds: { paths: [join(import.meta.dirname, 'crds')] } });
  controller = startWidgetController(env.kubeConfig());
  api = resourceApi(kubeApiClient(env.kubeConfig()), widgets);
});
after(async () => {
  await controller?.stop();
  await env?.stop();
});

const ready = async (name: string) => findStatusCondition((await api.get({ namespace: 'default', name })).status?.conditions, 'Ready');

test('a widget with a size becomes Ready, and is not written again', async () => {
  await api.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { namespace: 'default', name: 'a' }, spec: { size: 3 } });
  const first = await eventually(async () => {
    const condition = await ready('a');
    assert.equal(condition?.status, 'True');
    return condition;
  });
  assert.equal(first?.reason, 'Sized');
  // No flapping: the condition (its lastTransitionTime included) stays as it was first written.
  await consistently(async () => assert.deepEqual(await ready('a'), first), { durationMs: 1500 });
});

test('a widget resized to 0 turns Ready False at its new generation', async () => {
  const created = await api.create({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { namespace: 'default', name: 'b' },
    spec: { size: 1 },
  });
  await eventually(async () => assert.equal((await ready('b'))?.status, 'True'));
  const resized = await api.mergePatch({ namespace: 'default', name: 'b' }, { spec: { size: 0 } });
  assert.equal(resized.metadata?.generation, (created.metadata?.generation ?? 0) + 1);
  await eventually(async () => {
    assert.deepEqual(
      { ...(await ready('b')), lastTransitionTime: undefined },
      {
        type: 'Ready',
        status: 'False',
        observedGeneration: resized.metadata?.generation,
        reason: 'Empty',
        message: 'size is 0',
        lastTransitionTime: undefined,
      },
    );
  });
});
