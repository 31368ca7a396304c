/**
 * kubectl's pod columns (READY, STATUS, RESTARTS, AGE, and the wide IP, NODE, NOMINATED NODE,
 * READINESS GATES), computed from a pod as kube-apiserver 1.36 prints them in its Table rows: the
 * aggregate status of init containers, sidecars and containers, restarts with the time since the
 * last one. See `kubectlColumns.ts` for nodes and deployments, and why.
 */
import type { KubeObject } from '../types.ts';
import { formatAge, humanDuration } from './age.ts';

/** A time on the wire (RFC 3339) or as client-node types it. */
type Time = string | Date;

/** A container's state, as the fields kubectl's columns read. */
interface ContainerState {
  waiting?: { reason?: string };
  running?: object;
  terminated?: { exitCode?: number; signal?: number; reason?: string; finishedAt?: Time };
}

/** A container status, as the fields kubectl's columns read. */
interface ContainerStatus {
  name?: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

/** Conditions, as the fields kubectl's columns read. */
type Conditions = readonly { type?: string; status?: string; reason?: string }[] | undefined;

/** The fields of a pod that its columns read (a `V1Pod`, or the `PRESETS.pods` projection of one). */
export interface PodColumnsInput extends KubeObject {
  /** The node, the containers (counted) and init containers (sidecars), the readiness gates. */
  spec?: {
    nodeName?: string;
    containers?: readonly unknown[];
    initContainers?: readonly { name?: string; restartPolicy?: string }[];
    readinessGates?: readonly { conditionType?: string }[];
  };
  /** Phase, reason, nominated node, IPs, conditions, and every container's status. */
  status?: {
    phase?: string;
    reason?: string;
    nominatedNodeName?: string;
    podIPs?: readonly { ip?: string }[];
    conditions?: Conditions;
    initContainerStatuses?: readonly ContainerStatus[];
    containerStatuses?: readonly ContainerStatus[];
  };
}

/** A pod's cells, by the column names of kube-apiserver's pod Table. */
export interface PodCells {
  /** `metadata.name`. */
  Name: string;
  /** `ready/total` containers (restartable init containers, sidecars, count). */
  Ready: string;
  /** The pod's phase or reason, or its containers' (`CrashLoopBackOff`, `Init:1/3`, `Terminating`…). */
  Status: string;
  /** The restarts, with the time since the last one: `7 (5m ago)`. */
  Restarts: string;
  /** Since `metadata.creationTimestamp`: `5m`, `3d4h`; `<unknown>` without one. */
  Age: string;
  /** `status.podIPs[0].ip`, `<none>` before one is given. */
  IP: string;
  /** `spec.nodeName`, `<none>` before it is scheduled. */
  Node: string;
  /** `status.nominatedNodeName` (preemption), `<none>`. */
  'Nominated Node': string;
  /** `true/all` of its readiness gates, `<none>` without any. */
  'Readiness Gates': string;
}

const isTrue = (conditions: Conditions, type: string): boolean => conditions?.some((c) => c.type === type && c.status === 'True') === true;

/** The later of a time kept so far and a container's last termination, in ms (0: none). */
function lastTerminated(before: number, c: ContainerStatus): number {
  const at = c.lastState?.terminated?.finishedAt;
  const ms = at === undefined ? NaN : new Date(at).getTime();
  return Number.isNaN(ms) ? before : Math.max(before, ms);
}

/** What a terminated container says: its reason, else its signal, else its exit code. */
const terminatedReason = (t: NonNullable<ContainerState['terminated']>, prefix = ''): string =>
  t.reason ? `${prefix}${t.reason}` : t.signal ? `${prefix}Signal:${t.signal}` : `${prefix}ExitCode:${t.exitCode ?? 0}`;

/**
 * The cells of kubectl's pod columns (READY, STATUS, RESTARTS, AGE, and the wide IP, NODE,
 * NOMINATED NODE, READINESS GATES) at `nowMs`, as kube-apiserver prints them.
 *
 * @example
 * const cells = podCells(pod, Date.now()); // { Name: 'web', Ready: '1/2', Status: 'CrashLoopBackOff', Restarts: '7 (5m ago)', Age: '6m', … }
 *
 * Caveat: AGE and the time in RESTARTS are relative to `nowMs`: recompute them as time passes
 * rather than keep the strings.
 */
export function podCells(pod: PodColumnsInput, nowMs: number): PodCells {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const conditions = status.conditions;
  const restartable = new Set((spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  let reason = status.reason || status.phase || '';
  if (conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  const init = tallyInitContainers(status.initContainerStatuses ?? [], restartable, spec.initContainers?.length ?? 0);
  let tally: Tally = init;
  if (init.reason === undefined || isTrue(conditions, 'Initialized')) {
    tally = tallyContainers(status.containerStatuses ?? [], init);
    // A last container that completed while others run or failed does not make the pod Completed.
    if (tally.reason === 'Completed') {
      if (tally.running && isTrue(conditions, 'Ready')) tally.reason = 'Running';
      else if (tally.failed !== undefined) tally.reason = tally.failed;
      else if (tally.running) tally.reason = 'NotReady';
    }
  }
  reason = tally.reason ?? reason;
  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === 'NodeLost') reason = 'Unknown';
    else if (status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';
  }
  const gates = spec.readinessGates ?? [];
  const gatesTrue = gates.filter((g) => conditions?.find((c) => c.type === g.conditionType)?.status === 'True').length;
  const { restarts, lastRestart } = tally;
  return {
    Name: pod.metadata?.name ?? '',
    Ready: `${tally.ready}/${(spec.containers?.length ?? 0) + restartable.size}`,
    Status: reason,
    Restarts: restarts !== 0 && lastRestart > 0 ? `${restarts} (${humanDuration(nowMs - lastRestart)} ago)` : String(restarts),
    Age: formatAge(pod.metadata?.creationTimestamp, nowMs),
    IP: status.podIPs?.[0]?.ip || '<none>',
    Node: spec.nodeName || '<none>',
    'Nominated Node': status.nominatedNodeName || '<none>',
    'Readiness Gates': gates.length > 0 ? `${gatesTrue}/${gates.length}` : '<none>',
  };
}

/** What a pod's containers add up to: ready ones, restarts and the last one (ms), and the reason they give, if any. */
interface Tally {
  ready: number;
  restarts: number;
  lastRestart: number;
  reason?: string;
  running?: boolean;
  /** The reason of a main container that terminated with a non-zero exit code. */
  failed?: string;
  /** Of the init containers: the restarts of restartable ones (sidecars) alone, and their last. */
  sidecarRestarts?: number;
  lastSidecarRestart?: number;
}

/**
 * The init containers, in order, up to the first that is not done: its reason (`Init:…`) makes the
 * pod initializing. Sidecars (restartable init containers) that started count as ready containers.
 */
function tallyInitContainers(inits: readonly ContainerStatus[], restartable: ReadonlySet<string | undefined>, declared: number): Tally {
  const t: Tally = { ready: 0, restarts: 0, lastRestart: 0, sidecarRestarts: 0, lastSidecarRestart: 0 };
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    const state = c.state ?? {};
    t.restarts += c.restartCount ?? 0;
    t.lastRestart = lastTerminated(t.lastRestart, c);
    const sidecar = restartable.has(c.name);
    if (sidecar) {
      t.sidecarRestarts! += c.restartCount ?? 0;
      t.lastSidecarRestart = lastTerminated(t.lastSidecarRestart!, c);
    }
    if (state.terminated && (state.terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) t.ready++;
      continue;
    }
    if (state.terminated) t.reason = terminatedReason(state.terminated, 'Init:');
    else if (state.waiting?.reason && state.waiting.reason !== 'PodInitializing') t.reason = `Init:${state.waiting.reason}`;
    else t.reason = `Init:${i}/${declared}`;
    break;
  }
  return t;
}

/**
 * The main containers, from the last to the first (so the first one's state has the last word):
 * restarts on top of the sidecars', waiting and terminated reasons, and the running ready ones.
 */
function tallyContainers(statuses: readonly ContainerStatus[], init: Tally): Tally {
  const t: Tally = {
    ready: init.ready,
    restarts: init.sidecarRestarts ?? 0,
    lastRestart: init.lastSidecarRestart ?? 0,
    reason: init.reason,
    running: false,
  };
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i];
    const state = c.state ?? {};
    t.restarts += c.restartCount ?? 0;
    t.lastRestart = lastTerminated(t.lastRestart, c);
    if (state.waiting?.reason) t.reason = state.waiting.reason;
    else if (state.terminated) {
      t.reason = terminatedReason(state.terminated);
      if ((state.terminated.exitCode ?? 0) !== 0) t.failed = t.reason;
    } else if (c.ready && state.running) {
      t.running = true;
      t.ready++;
    }
  }
  return t;
}
