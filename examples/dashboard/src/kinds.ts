/**
 * The ten kinds the dashboard shows, each as a list view: the informer it reads, the columns of its
 * table and the cells of one row, and the row's health (for its colour). Every informer is
 * cluster-wide: the hub filters it to the namespaces the user may list, and the namespace filter of
 * the page only picks rows, so the hub holds one API server watch per kind whatever the filter.
 * Each informer keeps a projection of its objects (`projected`): what the row shows, no more; the
 * pods, nodes and deployments rows are kubectl's columns (core's presets and cells).
 */
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import { deploymentCells, formatAge, nodeCells, podCells, PRESETS, projected } from '@rxinformer/core/projection';

/** A row's health: its colour in the table. */
export type Health = 'ok' | 'progressing' | 'failing';

/** One kind of the dashboard. */
export interface KindView {
  /** The resource's plural name, unique here: `pods`. */
  readonly id: string;
  /** The picker's label. */
  readonly title: string;
  /** The informer the view reads: a projection of the kind to what its row shows. */
  readonly resource: ResourceDescriptor;
  /** The table's columns after Namespace and Name. */
  readonly columns: readonly string[];
  /** The cells of `object`'s row, one per column. */
  cells(object: KubeObject, nowMs: number): readonly string[];
  /** The row's health. */
  health(object: KubeObject, cells: readonly string[]): Health;
}

/** The fields the views of the other seven kinds read (all optional: a projection keeps what is there). */
interface Fields {
  spec?: { replicas?: number; type?: string; clusterIP?: string; ports?: { port?: number; protocol?: string }[]; completions?: number };
  status?: {
    phase?: string;
    replicas?: number;
    readyReplicas?: number;
    succeeded?: number;
    conditions?: { type?: string; status?: string }[];
  };
  data?: Record<string, string>;
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  involvedObject?: { kind?: string; name?: string };
}

const f = (o: KubeObject) => o as KubeObject & Fields;
const core = (resource: string, kind: string, namespaced = true): ResourceDescriptor => ({
  group: '',
  version: 'v1',
  resource,
  kind,
  namespaced,
});
const apps = (resource: string, kind: string): ResourceDescriptor => ({ group: 'apps', version: 'v1', resource, kind, namespaced: true });
const conditionTrue = (o: KubeObject, type: string) =>
  f(o).status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;
const age = (o: KubeObject, nowMs: number) => formatAge(o.metadata?.creationTimestamp, nowMs);
/** Healthy once `ready/wanted` reaches what is wanted. */
const readyOf = (text: string): Health => {
  const [ready, wanted] = text.split('/').map(Number);
  return ready >= wanted ? 'ok' : 'progressing';
};
/** The named cells of kubectl's columns (core's `podCells`, `nodeCells`, `deploymentCells`), in `columns`' order. */
const pick =
  <T extends KubeObject, C>(cellsOf: (o: T, now: number) => C, columns: readonly (keyof C & string)[]) =>
  (o: KubeObject, now: number) => {
    const all = cellsOf(o as T, now);
    return columns.map((c) => String(all[c]));
  };
const POD_COLUMNS = ['Ready', 'Status', 'Restarts', 'Node', 'Age'] as const;
const NODE_COLUMNS = ['Status', 'Roles', 'Version', 'Age'] as const;
const DEPLOYMENT_COLUMNS = ['Ready', 'Up-to-date', 'Available', 'Age'] as const;

/** The ten kinds, in the picker's order. */
export const KINDS: readonly KindView[] = [
  {
    id: 'pods',
    title: 'Pods',
    // What `kubectl get pods -o wide` shows, and nothing else of each pod, kept in the tab's cache.
    resource: projected(core('pods', 'Pod'), PRESETS.pods),
    columns: POD_COLUMNS,
    cells: pick(podCells, POD_COLUMNS),
    health: (_, [, status]) =>
      status === 'Running' || status === 'Completed'
        ? 'ok'
        : /^(Pending|ContainerCreating|PodInitializing|Init:|Terminating)/.test(status)
          ? 'progressing'
          : 'failing',
  },
  {
    id: 'nodes',
    title: 'Nodes',
    resource: projected(core('nodes', 'Node', false), PRESETS.nodes),
    columns: NODE_COLUMNS,
    cells: pick(nodeCells, NODE_COLUMNS),
    health: (_, [status]) => (status.startsWith('Ready') ? 'ok' : 'failing'),
  },
  {
    id: 'deployments',
    title: 'Deployments',
    resource: projected(apps('deployments', 'Deployment'), PRESETS.deployments),
    columns: DEPLOYMENT_COLUMNS,
    cells: pick(deploymentCells, DEPLOYMENT_COLUMNS),
    health: (_, [ready]) => readyOf(ready),
  },
  {
    id: 'events',
    title: 'Events',
    resource: projected(core('events', 'Event'), ['type', 'reason', 'message', 'count', 'involvedObject.kind', 'involvedObject.name']),
    columns: ['Type', 'Reason', 'Object', 'Count', 'Message'],
    cells: (o) => {
      const e = f(o);
      const about = `${(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name ?? ''}`;
      return [e.type ?? '', e.reason ?? '', about, String(e.count ?? 1), e.message ?? ''];
    },
    health: (o) => (f(o).type === 'Warning' ? 'failing' : 'ok'),
  },
  {
    id: 'namespaces',
    title: 'Namespaces',
    resource: projected(core('namespaces', 'Namespace', false), ['status.phase']),
    columns: ['Status', 'Age'],
    cells: (o, now) => [f(o).status?.phase ?? 'Active', age(o, now)],
    health: (o) => (f(o).status?.phase === 'Terminating' ? 'progressing' : 'ok'),
  },
  {
    id: 'services',
    title: 'Services',
    resource: projected(core('services', 'Service'), ['spec.type', 'spec.clusterIP', 'spec.ports[*].port', 'spec.ports[*].protocol']),
    columns: ['Type', 'Cluster-IP', 'Ports', 'Age'],
    cells: (o, now) => {
      const s = f(o).spec ?? {};
      const ports = (s.ports ?? []).map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',') || '<none>';
      return [s.type ?? 'ClusterIP', s.clusterIP ?? '<none>', ports, age(o, now)];
    },
    health: () => 'ok',
  },
  {
    id: 'configmaps',
    title: 'ConfigMaps',
    resource: projected(core('configmaps', 'ConfigMap'), ['data']),
    columns: ['Data', 'Age'],
    cells: (o, now) => [String(Object.keys(f(o).data ?? {}).length), age(o, now)],
    health: () => 'ok',
  },
  {
    id: 'replicasets',
    title: 'ReplicaSets',
    resource: projected(apps('replicasets', 'ReplicaSet'), ['spec.replicas', 'status.replicas', 'status.readyReplicas']),
    columns: ['Desired', 'Current', 'Ready', 'Age'],
    cells: (o, now) => [
      String(f(o).spec?.replicas ?? 1),
      String(f(o).status?.replicas ?? 0),
      String(f(o).status?.readyReplicas ?? 0),
      age(o, now),
    ],
    health: (_, [desired, , ready]) => (Number(ready) >= Number(desired) ? 'ok' : 'progressing'),
  },
  {
    id: 'statefulsets',
    title: 'StatefulSets',
    resource: projected(apps('statefulsets', 'StatefulSet'), ['spec.replicas', 'status.readyReplicas']),
    columns: ['Ready', 'Age'],
    cells: (o, now) => [`${f(o).status?.readyReplicas ?? 0}/${f(o).spec?.replicas ?? 1}`, age(o, now)],
    health: (_, [ready]) => readyOf(ready),
  },
  {
    id: 'jobs',
    title: 'Jobs',
    resource: projected({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true }, [
      'spec.completions',
      'status.succeeded',
      'status.conditions[*].type',
      'status.conditions[*].status',
    ]),
    columns: ['Status', 'Completions', 'Age'],
    cells: (o, now) => {
      const s = f(o).status ?? {};
      const status = conditionTrue(o, 'Complete') ? 'Complete' : conditionTrue(o, 'Failed') ? 'Failed' : 'Running';
      return [status, `${s.succeeded ?? 0}/${f(o).spec?.completions ?? 1}`, age(o, now)];
    },
    health: (o) => (conditionTrue(o, 'Complete') ? 'ok' : conditionTrue(o, 'Failed') ? 'failing' : 'progressing'),
  },
];
