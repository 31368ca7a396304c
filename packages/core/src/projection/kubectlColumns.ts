/**
 * kubectl's columns of pods (`podColumns.ts`), nodes and deployments, computed from an object (a projected one is
 * enough: see `presets.ts`), cell for cell what kube-apiserver 1.36 prints in its Table rows
 * (`as=Table`), keyed by the column names it gives. A list view built on a projection shows what
 * `kubectl get -o wide` shows without asking the server for Tables; the simulator prints its Tables
 * with the same functions, and a test on both servers holds them to the real server's cells.
 */
import { fromLabelSelectorObject, labelSelectorToString, type LabelSelectorObject } from '../labels/labelSelector.ts';
import type { KubeObject } from '../types.ts';
import { formatAge } from './age.ts';

/** The fields of a node that its columns read (a `V1Node`, or the `PRESETS.nodes` projection of one). */
export interface NodeColumnsInput extends KubeObject {
  /** Whether it is cordoned. */
  spec?: { unschedulable?: boolean };
  /** Its conditions (Ready), addresses and node info. */
  status?: {
    conditions?: readonly { type?: string; status?: string }[];
    addresses?: readonly { type?: string; address?: string }[];
    nodeInfo?: {
      kubeletVersion?: string;
      osImage?: string;
      kernelVersion?: string;
      containerRuntimeVersion?: string;
      architecture?: string;
    };
  };
}

/** A node's cells, by the column names of kube-apiserver's node Table. */
export interface NodeCells {
  /** `metadata.name`. */
  Name: string;
  /** `Ready`, `NotReady` or `Unknown` (no Ready condition), then `,SchedulingDisabled` when cordoned. */
  Status: string;
  /** Its `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels, sorted; `<none>`. */
  Roles: string;
  /** Since `metadata.creationTimestamp`. */
  Age: string;
  /** The kubelet's version (empty when not reported). */
  Version: string;
  /** Its first `InternalIP` address, `<none>`. */
  'Internal-IP': string;
  /** Its first `ExternalIP` address, `<none>`. */
  'External-IP': string;
  /** `status.nodeInfo.osImage`, `<unknown>`. */
  'OS-Image': string;
  /** The kernel version, with the architecture when reported: `6.8.0 (amd64)`. */
  'Kernel-Version': string;
  /** `status.nodeInfo.containerRuntimeVersion`, `<unknown>`. */
  'Container-Runtime': string;
}

/**
 * The cells of kubectl's node columns at `nowMs`, as kube-apiserver prints them.
 *
 * @example
 * nodeCells(node, Date.now()); // { Name: 'n1', Status: 'Ready', Roles: 'worker', Version: 'v1.36.3', 'Internal-IP': '192.168.1.5', … }
 */
export function nodeCells(node: NodeColumnsInput, nowMs: number): NodeCells {
  const status = node.status ?? {};
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  const state = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (node.spec?.unschedulable) state.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length)
      roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  const address = (type: string) => status.addresses?.find((a) => a.type === type)?.address ?? '<none>';
  const info = status.nodeInfo ?? {};
  return {
    Name: node.metadata?.name ?? '',
    Status: state.join(','),
    Roles: roles.size > 0 ? [...roles].sort().join(',') : '<none>',
    Age: formatAge(node.metadata?.creationTimestamp, nowMs),
    Version: info.kubeletVersion ?? '',
    'Internal-IP': address('InternalIP'),
    'External-IP': address('ExternalIP'),
    'OS-Image': info.osImage || '<unknown>',
    'Kernel-Version': `${info.kernelVersion || '<unknown>'}${info.architecture ? ` (${info.architecture})` : ''}`,
    'Container-Runtime': info.containerRuntimeVersion || '<unknown>',
  };
}

/** The fields of a deployment that its columns read (a `V1Deployment`, or the `PRESETS.deployments` projection of one). */
export interface DeploymentColumnsInput extends KubeObject {
  /** The replicas wanted, the selector, the template's containers. */
  spec?: {
    replicas?: number;
    /** A label selector (`LabelSelectorObject`), its fields optional as a projection types them. */
    selector?: {
      matchLabels?: Readonly<Record<string, string>>;
      matchExpressions?: readonly { key?: string; operator?: string; values?: readonly string[] }[];
    };
    template?: { spec?: { containers?: readonly { name?: string; image?: string }[] } };
  };
  /** The replicas ready, up to date and available. */
  status?: { readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** A deployment's cells, by the column names of kube-apiserver's deployment Table. */
export interface DeploymentCells {
  /** `metadata.name`. */
  Name: string;
  /** `ready/desired` replicas. */
  Ready: string;
  /** `status.updatedReplicas`. */
  'Up-to-date': number;
  /** `status.availableReplicas`. */
  Available: number;
  /** Since `metadata.creationTimestamp`. */
  Age: string;
  /** The template's container names, comma-separated. */
  Containers: string;
  /** The template's images, comma-separated. */
  Images: string;
  /** The selector in label selector syntax (`app=web,tier in (api,web)`), `<invalid>` if it is not one. */
  Selector: string;
}

/**
 * The cells of kubectl's deployment columns at `nowMs`, as kube-apiserver prints them.
 *
 * @example
 * deploymentCells(d, Date.now()); // { Name: 'web', Ready: '2/3', 'Up-to-date': 3, Available: 2, Selector: 'app=web', … }
 *
 * Caveat: an unset `spec.replicas` counts 0, as the server prints an object without it (a stored
 * deployment always has it: the API server defaults it to 1).
 */
export function deploymentCells(d: DeploymentColumnsInput, nowMs: number): DeploymentCells {
  const containers = d.spec?.template?.spec?.containers ?? [];
  let selector: string;
  try {
    selector = labelSelectorToString(fromLabelSelectorObject((d.spec?.selector ?? {}) as LabelSelectorObject));
  } catch {
    selector = '<invalid>';
  }
  return {
    Name: d.metadata?.name ?? '',
    Ready: `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
    'Up-to-date': d.status?.updatedReplicas ?? 0,
    Available: d.status?.availableReplicas ?? 0,
    Age: formatAge(d.metadata?.creationTimestamp, nowMs),
    Containers: containers.map((c) => c.name ?? '').join(','),
    Images: containers.map((c) => c.image ?? '').join(','),
    Selector: selector,
  };
}
