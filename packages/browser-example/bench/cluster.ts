/**
 * The bench's cluster: the simulator (in this process) with N realistic nodes and M realistic
 * pods, and a churn of writes per second like a busy cluster's: the pods created, updated,
 * deleted and recreated by the load generator, and the nodes' status heartbeats (a Ready
 * condition's `lastHeartbeatTime`, as the kubelet writes it). A burst on demand.
 */
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer, type ChurnHandle } from '@rxinformer/apiserver-sim';
import type { KubeObject } from '@rxinformer/core';

/** Options of `startCluster`. */
export interface ClusterOptions {
  nodes: number;
  pods: number;
  /** Writes per second while churning: the nodes' heartbeats (one per node every 2 minutes, at most a tenth of the rate), the pods' changes the rest. */
  writesPerSecond: number;
}

/** A running cluster. */
export interface BenchCluster {
  readonly sim: ApiServer;
  /** Starts the churn (idempotent). */
  churn(): void;
  /** `count` container restarts (pod status updates a list view shows) at `perSecond` on top of the churn; resolves when made. */
  burst(count: number, perSecond: number): Promise<void>;
  /** Writes made so far by the churn and bursts. */
  writes(): number;
  /** Objects the simulator holds. */
  held(): { pods: number; nodes: number };
  close(): Promise<void>;
}

const NAMESPACES = ['default', 'web', 'batch', 'data', 'monitoring'];

/** A node as a kubelet registers it, with its heartbeat at `beat` (an ISO time). */
export function benchNode(i: number, beat: string): KubeObject & { spec: object; status: object } {
  const name = `node-${i}`;
  const zone = `zone-${i % 3}`;
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    lastHeartbeatTime: beat,
    lastTransitionTime: '2025-01-01T00:00:00Z',
    reason,
    message: `kubelet says ${reason}`,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm5.2xlarge',
        'topology.kubernetes.io/zone': zone,
        'node-role.kubernetes.io/worker': '',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: `10.244.${i % 256}.0/24`, providerID: `aws:///${zone}/i-${(1e12 + i * 7919).toString(16)}` },
    status: {
      capacity: { cpu: '8', memory: '32386524Ki', pods: '110', 'ephemeral-storage': '104845292Ki' },
      allocatable: { cpu: '7910m', memory: '31235548Ki', pods: '110', 'ephemeral-storage': '96625420725' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
        condition('Ready', 'True', 'KubeletReady'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.${i >> 8}.${i & 255}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: (i * 2654435761).toString(16).padStart(32, '0'),
        systemUUID: `ec2${(i * 40503).toString(16).padStart(29, '0')}`,
        bootID: (i * 97).toString(16).padStart(32, 'b'),
        kernelVersion: '6.1.112-124.190.amzn2023.x86_64',
        osImage: 'Amazon Linux 2023.6.20241010',
        containerRuntimeVersion: 'containerd://1.7.22',
        kubeletVersion: 'v1.36.3',
        kubeProxyVersion: 'v1.36.3',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: Array.from({ length: 8 }, (_, k) => ({
        names: [
          `registry.example.com/team/app-${k}@sha256:${(k * 31 + 7).toString(16).padStart(64, '0')}`,
          `registry.example.com/team/app-${k}:1.${k}.0`,
        ],
        sizeBytes: 10_000_000 + k * 1_234_567,
      })),
    },
  };
}

/** Starts the simulator with the cluster's objects (no churn yet). */
export async function startCluster(options: ClusterOptions): Promise<BenchCluster> {
  const sim = await startApiServer({ port: 0, seed: 35, namespaces: NAMESPACES, history: { maxEvents: 100_000 } });
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (let i = 0; i < options.nodes; i++) sim.storage.create('nodes', benchNode(i, now()));
  const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: NAMESPACES, seed: 35, unalike: true });
  load.seed(options.pods);
  const handles: ChurnHandle[] = [];
  let beats = 0;
  let timer: NodeJS.Timeout | undefined;
  const heartbeat = () => {
    const i = beats++ % options.nodes;
    sim.storage.update('nodes', benchNode(i, now()), undefined, `node-${i}`, { subresource: 'status' });
  };
  let restarts = 0;
  /** A container restart, as the kubelet writes it: a status a list view shows (RESTARTS). */
  const restart = ([namespace, name]: readonly [string, string]) => {
    const pod = sim.storage.find('pods', namespace, name) as
      (KubeObject & { status?: { containerStatuses?: { restartCount?: number }[] } }) | undefined;
    const statuses = pod?.status?.containerStatuses;
    if (!pod || !statuses?.length) return;
    const containerStatuses = statuses.map((c, i) => (i === 0 ? { ...c, restartCount: (c.restartCount ?? 0) + 1 } : c));
    sim.storage.update('pods', { ...pod, status: { ...pod.status, containerStatuses } }, namespace, name, { subresource: 'status' });
    restarts++;
  };
  const heartbeatsPerSecond = Math.min(options.nodes / 120, options.writesPerSecond / 10);
  return {
    sim,
    churn: () => {
      if (timer || options.writesPerSecond <= 0) return;
      handles.push(load.churn({ ratePerSecond: options.writesPerSecond - heartbeatsPerSecond }));
      if (heartbeatsPerSecond > 0) timer = setInterval(heartbeat, 1000 / heartbeatsPerSecond);
    },
    burst: (count, perSecond) => {
      const keys = sim.storage.list('pods').map((p) => [p.metadata!.namespace!, p.metadata!.name!] as const);
      return new Promise<void>((resolve) => {
        let made = 0;
        const tick = setInterval(() => {
          for (let k = 0; k < perSecond / 100 && made < count; k++, made++) restart(keys[(made * 7919) % keys.length]);
          if (made < count) return;
          clearInterval(tick);
          resolve();
        }, 10);
      });
    },
    writes: () => {
      const c = load.counters;
      return c.created + c.updated + c.deleted + c.recreated + beats + restarts;
    },
    held: () => ({ pods: sim.storage.list('pods').length, nodes: sim.storage.list('nodes').length }),
    close: async () => {
      clearInterval(timer);
      for (const handle of handles) handle.stop();
      await sim.close();
    },
  };
}
