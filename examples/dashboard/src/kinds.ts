/**
 * The ten kinds the dashboard shows, each as a list view: the informer it reads, the columns of its
 * table and the cells of one row, and the row's health (for its colour). Every informer is
 * cluster-wide: the hub filters it to the namespaces the user may list, and the namespace filter of
 * the page only picks rows, so the hub holds one API server watch per kind whatever the filter.
 */
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';

/** A row's health: its colour in the table. */
export type Health = 'ok' | 'progressing' | 'failing';

/** One kind of the dashboard. */
export interface KindView {
  /** The resource's plural name, unique here: `pods`. */
  readonly id: string;
  /** The picker's label. */
  readonly title: string;
  /** The informer the view reads. */
  readonly resource: ResourceDescriptor;
  /** The table's columns after Namespace and Name. */
  readonly columns: readonly string[];
  /** The cells of `object`'s row, one per column. */
  cells(object: KubeObject, nowMs: number): readonly string[];
  /** The row's health. */
  health(object: KubeObject): Health;
}

/** The fields of the objects the views read (all optional, as the server may leave any out). */
interface Fields {
  spec?: {
    replicas?: number;
    type?: string;
    clusterIP?: string;
    ports?: { port?: number; protocol?: string }[];
    completions?: number;
    nodeName?: string;
    unschedulable?: boolean;
  };
  status?: {
    phase?: string;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    succeeded?: number;
    failed?: number;
    active?: number;
    conditions?: { type?: string; status?: string }[];
    containerStatuses?: { ready?: boolean; restartCount?: number }[];
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
const replicas = (o: KubeObject): Health => {
  const want = f(o).spec?.replicas ?? 1;
  return (f(o).status?.readyReplicas ?? 0) >= want ? 'ok' : 'progressing';
};

/** Kubernetes' short ages: `42s`, `5m`, `3h`, `2d`. */
export function age(object: KubeObject, nowMs: number): string {
  const created = new Date(object.metadata?.creationTimestamp ?? NaN).getTime();
  if (Number.isNaN(created)) return '<unknown>';
  const s = Math.max(0, Math.floor((nowMs - created) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** The ten kinds, in the picker's order. */
export const KINDS: readonly KindView[] = [
  {
    id: 'pods',
    title: 'Pods',
    resource: core('pods', 'Pod'),
    columns: ['Ready', 'Status', 'Restarts', 'Node', 'Age'],
    cells: (o, now) => {
      const statuses = f(o).status?.containerStatuses ?? [];
      const ready = statuses.filter((c) => c.ready).length;
      const restarts = statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0);
      return [
        `${ready}/${statuses.length}`,
        f(o).status?.phase ?? 'Unknown',
        String(restarts),
        f(o).spec?.nodeName ?? '<none>',
        age(o, now),
      ];
    },
    health: (o) => {
      const phase = f(o).status?.phase;
      return phase === 'Running' || phase === 'Succeeded' ? 'ok' : phase === 'Pending' ? 'progressing' : 'failing';
    },
  },
  {
    id: 'nodes',
    title: 'Nodes',
    resource: core('nodes', 'Node', false),
    columns: ['Status', 'Age'],
    cells: (o, now) => [
      (conditionTrue(o, 'Ready') ? 'Ready' : 'NotReady') + (f(o).spec?.unschedulable ? ',SchedulingDisabled' : ''),
      age(o, now),
    ],
    health: (o) => (conditionTrue(o, 'Ready') ? 'ok' : 'failing'),
  },
  {
    id: 'deployments',
    title: 'Deployments',
    resource: apps('deployments', 'Deployment'),
    columns: ['Ready', 'Available', 'Age'],
    cells: (o, now) => [
      `${f(o).status?.readyReplicas ?? 0}/${f(o).spec?.replicas ?? 1}`,
      String(f(o).status?.availableReplicas ?? 0),
      age(o, now),
    ],
    health: replicas,
  },
  {
    id: 'events',
    title: 'Events',
    resource: core('events', 'Event'),
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
    resource: core('namespaces', 'Namespace', false),
    columns: ['Status', 'Age'],
    cells: (o, now) => [f(o).status?.phase ?? 'Active', age(o, now)],
    health: (o) => (f(o).status?.phase === 'Terminating' ? 'progressing' : 'ok'),
  },
  {
    id: 'services',
    title: 'Services',
    resource: core('services', 'Service'),
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
    resource: core('configmaps', 'ConfigMap'),
    columns: ['Data', 'Age'],
    cells: (o, now) => [String(Object.keys(f(o).data ?? {}).length), age(o, now)],
    health: () => 'ok',
  },
  {
    id: 'replicasets',
    title: 'ReplicaSets',
    resource: apps('replicasets', 'ReplicaSet'),
    columns: ['Desired', 'Current', 'Ready', 'Age'],
    cells: (o, now) => [
      String(f(o).spec?.replicas ?? 1),
      String(f(o).status?.replicas ?? 0),
      String(f(o).status?.readyReplicas ?? 0),
      age(o, now),
    ],
    health: replicas,
  },
  {
    id: 'statefulsets',
    title: 'StatefulSets',
    resource: apps('statefulsets', 'StatefulSet'),
    columns: ['Ready', 'Age'],
    cells: (o, now) => [`${f(o).status?.readyReplicas ?? 0}/${f(o).spec?.replicas ?? 1}`, age(o, now)],
    health: replicas,
  },
  {
    id: 'jobs',
    title: 'Jobs',
    resource: { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true },
    columns: ['Status', 'Completions', 'Age'],
    cells: (o, now) => {
      const s = f(o).status ?? {};
      const status = conditionTrue(o, 'Complete') ? 'Complete' : conditionTrue(o, 'Failed') ? 'Failed' : 'Running';
      return [status, `${s.succeeded ?? 0}/${f(o).spec?.completions ?? 1}`, age(o, now)];
    },
    health: (o) => (conditionTrue(o, 'Complete') ? 'ok' : conditionTrue(o, 'Failed') ? 'failing' : 'progressing'),
  },
];
