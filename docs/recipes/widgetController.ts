/**
 * Recipe: a controller of a custom resource that reports in status conditions. Every Widget gets a
 * `Ready` condition: True while its `spec.size` is above 0, False at 0, with the generation it was
 * computed from. The status subresource is written only when the condition changes, and its
 * `lastTransitionTime` only moves when its status does. Tested with envtest, CRDs from a folder,
 * `eventually` and `consistently` under `node --test` (widgetController.node-test.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { controllerFor, setStatusCondition, statusConditions, type Condition, type ConditionInput } from '@rxinformer/controller';
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';

/** A Widget (crds/widgets.yaml). */
export interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { conditions?: Condition[] };
}

/** example.com/v1 Widgets. */
export const widgets: ResourceDescriptor<Widget> = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

/** A running widget controller. */
export interface WidgetController {
  /** Stops the workers, then the informers, and closes the connections. */
  stop(): Promise<void>;
}

/** The `Ready` condition a widget should have. */
export function readyCondition(widget: Widget): ConditionInput {
  const size = widget.spec?.size ?? 0;
  const observedGeneration = widget.metadata?.generation;
  return size > 0
    ? { type: 'Ready', status: 'True', reason: 'Sized', message: `size ${size}`, observedGeneration }
    : { type: 'Ready', status: 'False', reason: 'Empty', message: 'size is 0', observedGeneration };
}

/**
 * Starts the widget controller on the widgets of `namespace` (default: all namespaces).
 *
 * @example
 * const controller = startWidgetController(kc);
 * process.once('SIGTERM', () => void controller.stop());
 */
export function startWidgetController(kubeConfig: KubeConfig, options: { namespace?: string } = {}): WidgetController {
  const factory = createKubeInformerFactory(kubeConfig, { namespace: options.namespace });
  const running = controllerFor(factory, widgets, { name: 'widgets', client: kubeApiClient(kubeConfig) })
    .reconcile(async ({ object, api }) => {
      if (object === undefined) return; // deleted
      // A JSON Patch of status.conditions when the condition changed; nothing sent when it did not.
      await api(widgets).updateStatus(object, (d) => void setStatusCondition(statusConditions(d), readyCondition(object)));
    })
    .start();
  return {
    stop: async () => {
      await running.stop();
      await factory.close();
    },
  };
}
