/**
 * A realistic pod (~4 KB of JSON with managedFields, owner references, probes, status), built
 * deterministically from an index: what the load generator creates and the benchmarks measure.
 * Like the pods of one workload on a real cluster, they share their spec but each has its own
 * name, node, IPs, start and transition times and container ID.
 */
import type { KubeObject } from '@rxinformer/core';

/** The uid of the ReplicaSet that owns the pods. */
const OWNER_UID = '5f0c8a52-8f3e-4c7a-9d1b-2e6f4a3b1c0d';
/** The image of the pods' one container. */
const IMAGE = 'registry.example.com/team/web:1.27.3';

/** Options of `realisticPod`. */
export interface RealisticPodOptions {
  /**
   * As unalike as the pods of one workload on a real cluster, where more than the name, IPs and
   * container ID differ: the service-account volume's generated name (`kube-api-access-x7k2p`, in
   * the volume and its mount), each condition's own transition time, the kubelet's managedFields
   * entry keyed by the pod's IP and stamped with its own time. A cache that shares equal subtrees
   * between objects shares less of these. Default false: the parts above are the same for every pod.
   */
  unalike?: boolean;
}

/** What differs between pods: the same for every pod where `unalike` is off. */
interface PodVariation {
  /** The pod's creation (the controller's write). */
  time: string;
  scheduledAt: string;
  initializedAt: string;
  /** Ready, and the kubelet's last status write. */
  readyAt: string;
  startedAt: string;
  podIP: string;
  /** The IP the kubelet's managedFields entry is keyed by. */
  ipKey: string;
  /** The service-account volume's name. */
  volume: string;
}

function variation(i: number, unalike: boolean): PodVariation {
  const at = (offsetS: number) => new Date(Date.UTC(2025, 0, 1) + i * 1000 + offsetS * 1000).toISOString().replace('.000', '');
  const time = at(0);
  const podIP = `10.244.${(i >> 8) & 255}.${i & 255}`;
  if (!unalike)
    return {
      time,
      scheduledAt: time,
      initializedAt: time,
      readyAt: time,
      startedAt: time,
      podIP,
      ipKey: '10.244.1.5',
      volume: 'kube-api-access',
    };
  // Scheduled, then initialized, started and ready a few seconds later, as a pod starts.
  const suffix = generatedSuffix(hex64(i));
  return {
    time,
    scheduledAt: at(-3),
    initializedAt: at(-2),
    readyAt: at(4),
    startedAt: at(1),
    podIP,
    ipKey: podIP,
    volume: `kube-api-access-${suffix}`,
  };
}

/** The i-th realistic pod (no namespace, uid or resourceVersion: the server fills those). */
export function realisticPod(i: number, options: RealisticPodOptions = {}): KubeObject {
  const name = `web-${String(i).padStart(6, '0')}`;
  const rolloutTime = '2025-01-01T00:00:00Z'; // the Deployment's, shared by its pods
  const v = variation(i, options.unalike === true);
  const time = v.time;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { app: 'web', 'pod-template-hash': '7d9f8b6c5d', tier: i % 2 === 0 ? 'frontend' : 'backend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': rolloutTime, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8b6c5d', uid: OWNER_UID, controller: true, blockOwnerDeletion: true },
      ],
      managedFields: [controllerFields(time), kubeletFields(v)],
    },
    spec: podSpec(i, v.volume),
    status: podStatus(i, v),
  } as KubeObject;
}

/** The managedFields entry of the ReplicaSet controller that created the pod. */
function controllerFields(time: string): Record<string, unknown> {
  return {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': {
        'f:generateName': {},
        'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} },
        'f:ownerReferences': { '.': {}, [`k:{"uid":"${OWNER_UID}"}`]: {} },
      },
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': {
            '.': {},
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
            'f:resources': {
              '.': {},
              'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} },
              'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} },
            },
          },
        },
        'f:dnsPolicy': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:terminationGracePeriodSeconds': {},
      },
    },
  };
}

/** The managedFields entry of the kubelet's status updates. */
function kubeletFields(v: PodVariation): Record<string, unknown> {
  return {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: v.readyAt,
    fieldsType: 'FieldsV1',
    subresource: 'status',
    fieldsV1: {
      'f:status': {
        'f:conditions': {
          'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
        },
        'f:containerStatuses': {},
        'f:hostIP': {},
        'f:hostIPs': {},
        'f:phase': {},
        'f:podIP': {},
        'f:podIPs': { '.': {}, [`k:{"ip":"${v.ipKey}"}`]: { '.': {}, 'f:ip': {} } },
        'f:startTime': {},
      },
    },
  };
}

/** The spec every pod of the workload shares, on node `node-<i % 50>`. */
function podSpec(i: number, volume: string): Record<string, unknown> {
  return {
    containers: [
      {
        name: 'web',
        image: IMAGE,
        imagePullPolicy: 'IfNotPresent',
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        env: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        volumeMounts: [{ name: volume, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    volumes: [
      {
        name: volume,
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          ],
        },
      },
    ],
    nodeName: `node-${i % 50}`,
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    schedulerName: 'default-scheduler',
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  };
}

/** A running, ready pod's status: its own IPs, times and container ID. */
function podStatus(i: number, v: PodVariation): Record<string, unknown> {
  return {
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: v.initializedAt },
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: v.readyAt },
      { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: v.readyAt },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: v.scheduledAt },
    ],
    hostIP: `10.0.0.${i % 50}`,
    hostIPs: [{ ip: `10.0.0.${i % 50}` }],
    podIP: v.podIP,
    podIPs: [{ ip: v.podIP }],
    startTime: v.time,
    containerStatuses: [
      {
        name: 'web',
        state: { running: { startedAt: v.startedAt } },
        ready: true,
        restartCount: 0,
        image: IMAGE,
        imageID: 'registry.example.com/team/web@sha256:4f2a1b3c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708',
        containerID: `containerd://${hex64(i)}`,
        started: true,
      },
    ],
    qosClass: 'Burstable',
  };
}

/** 64 hex digits derived from `i` (a container ID's shape), the same for the same `i`. */
function hex64(i: number): string {
  let h = (i + 1) >>> 0;
  let out = '';
  for (let k = 0; k < 8; k++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = (Math.imul(h ^ (h >>> 12), 0x297a2d39) ^ k) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}

/** Five characters of a generated name (Kubernetes' alphabet, no vowels), taken from hex digits. */
function generatedSuffix(hex: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let k = 0; k < 5; k++) out += alphabet[parseInt(hex.slice(k * 2, k * 2 + 2), 16) % alphabet.length];
  return out;
}
