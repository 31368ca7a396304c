/**
 * `meta.k8s.io/v1` Table output, what `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Pods get kubectl's usual columns
 * (Name, Ready, Status, Restarts, Age, and IP and Node at priority 1); other kinds Name and Age.
 */
import { type KubeObject, type ListMeta } from '@rxinformer/core';
import { humanDuration } from './age.ts';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}
const col = (name: string, type: string, description: string, priority = 0, format = ''): Column => ({
  name,
  type,
  format,
  description,
  priority,
});

interface PodLike extends KubeObject {
  spec?: { containers?: unknown[]; nodeName?: string };
  status?: { phase?: string; reason?: string; podIP?: string; containerStatuses?: { ready?: boolean; restartCount?: number }[] };
}

/** kubectl's compact age of `from` at `now`: `45s`, `3m2s`, `5h`, `2d`… (`humanDuration` of age.ts). */
export function humanAge(from: Date, now: Date): string {
  return humanDuration(now.getTime() - from.getTime());
}

function age(obj: KubeObject, now: Date): string {
  const t = obj.metadata?.creationTimestamp;
  return t ? humanAge(new Date(t), now) : '<unknown>';
}

function podCells(p: PodLike, now: Date): unknown[] {
  const statuses = p.status?.containerStatuses ?? [];
  const total = p.spec?.containers?.length ?? statuses.length;
  const ready = statuses.filter((c) => c.ready).length;
  const restarts = statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0);
  const status = p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.reason ?? p.status?.phase ?? 'Pending');
  return [p.metadata?.name, `${ready}/${total}`, status, restarts, age(p, now), p.status?.podIP ?? '<none>', p.spec?.nodeName ?? '<none>'];
}

/** Builds the Table of `objects` of `resource` (plural name), with the list's metadata. */
export function toTable(resource: string, objects: readonly KubeObject[], listMeta: ListMeta, now: Date): unknown {
  const pods = resource === 'pods';
  const columnDefinitions = pods
    ? [
        col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
        col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
        col('Status', 'string', 'The aggregate status of the containers in this pod.'),
        col('Restarts', 'string', 'The number of times the containers in this pod have been restarted.'),
        col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
        col('IP', 'string', 'IP address allocated to the pod.', 1),
        col('Node', 'string', 'Name of the Node the pod is assigned to.', 1),
      ]
    : [
        col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
        col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
      ];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions,
    rows: objects.map((o) => ({
      cells: pods ? podCells(o as PodLike, now) : [o.metadata?.name, age(o, now)],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
