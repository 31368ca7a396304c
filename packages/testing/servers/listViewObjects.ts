/**
 * Writes the list-view objects of the test kit (`listViewPods`…, their kubectl columns saying
 * something) the same way to the simulator and to kube-apiserver: created, then their status
 * patched through the status subresource, as a kubelet or controller would; for the suites that
 * compare Tables and list views on both servers.
 */
import { listViewCoreEvents, listViewDeployments, listViewEventsV1, listViewNodes, listViewPods } from '@rxinformer/testing/fixtures';
import type { TestApi } from './api.ts';

/** The names of what `createListViewObjects` made. */
export interface ListViewObjects {
  /** Pod names, in `ns`. */
  pods: string[];
  /** Node names (cluster-scoped), each labelled `list-view=<nodePrefix>`. */
  nodes: string[];
  /** Deployment names, in `ns`. */
  deployments: string[];
  /** The label selector of the nodes. */
  nodeSelector: string;
  /** The namespace of the pods (those held by a finalizer are let go by `deleteListViewObjects`). */
  namespace: string;
}

/**
 * Creates the pods, deployments and core events in `ns`, events.k8s.io events in `eventsNs` (the
 * real server keeps one store for both groups), and nodes named `<ns>-n1`…, then patches their
 * status in; `terminating` and `lost` keep a finalizer and are deleted. Clean up with `deleteListViewObjects`.
 */
export async function createListViewObjects(api: TestApi, ns: string, eventsNs: string): Promise<ListViewObjects> {
  const made: ListViewObjects = { pods: [], nodes: [], deployments: [], nodeSelector: `list-view=${ns}`, namespace: ns };
  const now = Date.now();
  for (const p of listViewPods(now)) {
    const metadata = { name: p.name, labels: { app: p.name }, ...(p.finalizer && { finalizers: ['example.com/keep'] }) };
    await api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata, spec: p.spec });
    await api.patch(`/api/v1/namespaces/${ns}/pods/${p.name}/status`, { status: p.status });
    if (p.finalizer) await api.call('DELETE', `/api/v1/namespaces/${ns}/pods/${p.name}`);
    made.pods.push(p.name);
  }
  for (const n of listViewNodes(now)) {
    const name = `${ns}-${n.name}`;
    await api.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { ...n.labels, 'list-view': ns } },
      spec: n.spec,
    });
    await api.patch(`/api/v1/nodes/${name}/status`, { status: n.status });
    made.nodes.push(name);
  }
  for (const d of listViewDeployments()) {
    await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: d.name },
      spec: d.spec,
    });
    if (d.status) await api.patch(`/apis/apps/v1/namespaces/${ns}/deployments/${d.name}/status`, { status: d.status });
    made.deployments.push(d.name);
  }
  for (const e of listViewCoreEvents(ns, now))
    await api.create(`/api/v1/namespaces/${ns}/events`, { apiVersion: 'v1', kind: 'Event', ...e });
  for (const e of listViewEventsV1(eventsNs, now))
    await api.create(`/apis/events.k8s.io/v1/namespaces/${eventsNs}/events`, { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...e });
  return made;
}

/**
 * Deletes the nodes `createListViewObjects` made (cluster-scoped: a fresh namespace does not hold
 * them) and lets its pods held by a finalizer go.
 */
export async function deleteListViewObjects(api: TestApi, made: ListViewObjects): Promise<void> {
  for (const name of made.nodes) await api.delete(`/api/v1/nodes/${name}`, { ignoreMissing: true });
  for (const name of made.pods) await api.delete(`/api/v1/namespaces/${made.namespace}/pods/${name}`, { ignoreMissing: true, force: true });
}
