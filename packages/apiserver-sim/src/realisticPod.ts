/**
 * A realistic pod (~4 KB of JSON with managedFields, owner references, probes, status), built
 * deterministically from an index: what the load generator creates and the benchmarks measure.
 */
import type { KubeObject } from '@rxinformer/core';

/** The i-th realistic pod (no namespace, uid or resourceVersion: the server fills those). */
export function realisticPod(i: number): KubeObject {
  const name = `web-${String(i).padStart(6, '0')}`;
  const time = '2025-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { app: 'web', 'pod-template-hash': '7d9f8b6c5d', tier: i % 2 === 0 ? 'frontend' : 'backend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': time, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8b6c5d', uid: '5f0c8a52-8f3e-4c7a-9d1b-2e6f4a3b1c0d', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"5f0c8a52-8f3e-4c7a-9d1b-2e6f4a3b1c0d"}': {} } },
            'f:spec': {
              'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } }, 'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } } } },
              'f:dnsPolicy': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } }, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, 'k:{"ip":"10.244.1.5"}': { '.': {}, 'f:ip': {} } }, 'f:startTime': {} } },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          imagePullPolicy: 'IfNotPresent',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      volumes: [{ name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }],
      nodeName: `node-${i % 50}`,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: time },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: time },
        { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: time },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: time },
      ],
      hostIP: `10.0.0.${i % 50}`,
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      podIPs: [{ ip: `10.244.${(i >> 8) & 255}.${i & 255}` }],
      startTime: time,
      containerStatuses: [{ name: 'web', state: { running: { startedAt: time } }, ready: true, restartCount: 0, image: 'registry.example.com/team/web:1.27.3', imageID: 'registry.example.com/team/web@sha256:4f2a1b3c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708', containerID: 'containerd://9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c', started: true }],
      qosClass: 'Burstable',
    },
  } as KubeObject;
}
