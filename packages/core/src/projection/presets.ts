/**
 * Projections for the list views everyone builds first: pods, nodes and deployments. Each keeps
 * what `kubectl get -o wide` shows of the kind (its columns are computed from it by
 * `kubectlColumns.ts`) and the few fields a view shows beside them; with the informer's own fields
 * (`INFORMER_FIELDS`). Start from one and add paths: `project([...PRESET_PATHS.pods, 'spec.priority'])`.
 */
import type { Projection } from '../types.ts';
import { project } from './project.ts';

const containerStatus = (list: string): string[] =>
  [
    'name',
    'ready',
    'started',
    'restartCount',
    'state.waiting.reason',
    'state.running',
    'state.terminated.exitCode',
    'state.terminated.signal',
    'state.terminated.reason',
    'lastState.terminated.finishedAt',
  ].map((field) => `status.${list}[*].${field}`);

/** The field paths of each preset (frozen): to extend, or to read what a preset keeps. */
export const PRESET_PATHS: {
  /**
   * A pod row: phase and reason, conditions (type, status, reason: Ready, Initialized, scheduling
   * gates), node and nominated node, pod IPs, the containers' and init containers' names and
   * images (and init containers' restart policy: sidecars), readiness gates, and for every
   * container status its name, readiness, restarts, state and last termination time. Enough for
   * `podCells`: READY, STATUS, RESTARTS (with "5m ago"), AGE, IP, NODE, NOMINATED NODE, READINESS GATES.
   */
  readonly pods: readonly string[];
  /**
   * A node row: conditions (type, status, reason), capacity and allocatable CPU and memory,
   * addresses, taints, whether it is cordoned, and the kubelet version, OS image, kernel,
   * architecture and container runtime. Enough for `nodeCells`.
   */
  readonly nodes: readonly string[];
  /**
   * A deployment row: desired, ready, updated and available replicas, conditions (type, status,
   * reason), the selector, and the template's container names and images. Enough for `deploymentCells`.
   */
  readonly deployments: readonly string[];
} = Object.freeze({
  pods: Object.freeze([
    'status.phase',
    'status.reason',
    'status.conditions[*].type',
    'status.conditions[*].status',
    'status.conditions[*].reason',
    'status.podIP',
    'status.podIPs[*].ip',
    'status.nominatedNodeName',
    'spec.nodeName',
    'spec.containers[*].name',
    'spec.containers[*].image',
    'spec.initContainers[*].name',
    'spec.initContainers[*].image',
    'spec.initContainers[*].restartPolicy',
    'spec.readinessGates[*].conditionType',
    ...containerStatus('initContainerStatuses'),
    ...containerStatus('containerStatuses'),
  ]),
  nodes: Object.freeze([
    'spec.unschedulable',
    'spec.taints',
    'status.conditions[*].type',
    'status.conditions[*].status',
    'status.conditions[*].reason',
    'status.capacity.cpu',
    'status.capacity.memory',
    'status.allocatable.cpu',
    'status.allocatable.memory',
    'status.addresses',
    'status.nodeInfo.kubeletVersion',
    'status.nodeInfo.osImage',
    'status.nodeInfo.kernelVersion',
    'status.nodeInfo.architecture',
    'status.nodeInfo.containerRuntimeVersion',
  ]),
  deployments: Object.freeze([
    'spec.replicas',
    'spec.selector',
    'spec.template.spec.containers[*].name',
    'spec.template.spec.containers[*].image',
    'status.replicas',
    'status.readyReplicas',
    'status.updatedReplicas',
    'status.availableReplicas',
    'status.conditions[*].type',
    'status.conditions[*].status',
    'status.conditions[*].reason',
  ]),
});

/**
 * The preset projections, compiled: `projected(pods, PRESETS.pods)` names an informer of pod rows.
 *
 * @example
 * const podRows = factory.informerFor(projected(pods, PRESETS.pods));
 * podRows.getStore().list().map((p) => podCells(p, Date.now())); // kubectl's columns
 *
 * Caveat: a handler of such an informer sees projected objects only; one needing the whole object
 * reads it from the server or from a full informer.
 */
export const PRESETS: {
  /** `PRESET_PATHS.pods`, compiled. */
  readonly pods: Projection;
  /** `PRESET_PATHS.nodes`, compiled. */
  readonly nodes: Projection;
  /** `PRESET_PATHS.deployments`, compiled. */
  readonly deployments: Projection;
} = Object.freeze({
  pods: project(PRESET_PATHS.pods),
  nodes: project(PRESET_PATHS.nodes),
  deployments: project(PRESET_PATHS.deployments),
});
