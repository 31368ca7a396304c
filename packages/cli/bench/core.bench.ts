/**
 * Benchmark of @rxinformer/core alone: the cost of applying one watch event with 1k, 10k and 100k
 * objects cached, and the peak heap of a 100k-object relist against the store's steady heap.
 *
 *   npm run bench:core            # a table
 *   npm run bench:core -- --json  # one JSON object
 *
 * Runs with --expose-gc (the npm script passes it) so heap figures are taken after a full GC.
 */
import { performance } from 'node:perf_hooks';
import { createDeltaReducer, initialDeltaState, type DeltaStoreState, type KubeObject } from '@rxinformer/core';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:core does)');
  process.exit(2);
}

/** A pod of about 3 KB, shaped like what a ReplicaSet controller creates. */
export function benchPod(i: number, rv: number, ns = `ns-${i % 20}`): KubeObject {
  const name = `web-${i.toString(36)}-x7k2p`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: ns, uid: `0000-${i}`, resourceVersion: String(rv), generateName: 'web-',
      creationTimestamp: '2026-11-01T10:00:00Z', labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', tier: `t${i % 3}` },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c6b5', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-11-01T10:00:00Z', fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"rs-uid"}': {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} } }, 'f:dnsPolicy': {}, 'f:restartPolicy': {} } } },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-11-01T10:00:05Z', fieldsType: 'FieldsV1', subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } }, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:startTime': {} } } },
      ],
    },
    spec: {
      nodeName: `node-${i % 50}`, restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', schedulerName: 'default-scheduler',
      containers: [{ name: 'web', image: 'registry.example.com/web:1.24.3', imagePullPolicy: 'IfNotPresent',
        ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
        env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }] }],
      volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running', hostIP: `10.0.${i % 50}.1`, podIP: `10.244.${(i >> 8) & 255}.${i & 255}`, startTime: '2026-11-01T10:00:01Z', qosClass: 'Burstable',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: '2026-11-01T10:00:03Z' })),
      containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'registry.example.com/web:1.24.3', imageID: 'sha256:0f3a', containerID: 'containerd://9c1e', started: true, state: { running: { startedAt: '2026-11-01T10:00:02Z' } } }],
    },
  } as KubeObject;
}

const heap = (): number => { gc!(); gc!(); return process.memoryUsage().heapUsed; };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function loaded(n: number): { state: DeltaStoreState<KubeObject>; apply: ReturnType<typeof createDeltaReducer<KubeObject>> } {
  const apply = createDeltaReducer<KubeObject>();
  const state = apply(initialDeltaState(), { type: 'replace', items: Array.from({ length: n }, (_, i) => benchPod(i, i + 1)), resourceVersion: String(n) });
  return { state, apply };
}

/** Nanoseconds per applied MODIFIED event with `n` objects cached (median of rounds). */
export function eventCost(n: number, events = 20_000, rounds = 7): number {
  let { state, apply } = loaded(n);
  let rv = n + 1;
  // Pre-build the events so only the apply is timed.
  const batch = Array.from({ length: events }, (_, j) => benchPod((j * 7919) % n, ++rv));
  const samples: number[] = [];
  for (let r = 0; r < rounds + 2; r++) {
    const t0 = performance.now();
    for (const object of batch) state = apply(state, { type: 'modified', object: { ...object, metadata: { ...object.metadata, resourceVersion: String(++rv) } } });
    const ns = ((performance.now() - t0) * 1e6) / events;
    if (r >= 2) samples.push(ns); // two warm-up rounds
  }
  return median(samples);
}

/** Steady heap of a `n`-object store and the peak while a relist of `n` changed objects is applied. */
export function relistHeap(n = 100_000): { steadyBytes: number; peakBytes: number } {
  const base = heap();
  let { state, apply } = loaded(n);
  const steadyBytes = heap() - base;
  const items = Array.from({ length: n }, (_, i) => benchPod(i, n + i + 1)); // the decoded list, all changed
  state = apply(state, { type: 'replace', items, resourceVersion: String(2 * n + 1) });
  // Live heap at the relist's peak: the decoded list, the new store and the deltas (which hold the
  // old objects) are all reachable here; garbage is collected first so only live bytes count.
  const peakBytes = heap() - base;
  if (state.store.size !== n) throw new Error('relist lost objects');
  return { steadyBytes, peakBytes };
}

function main(): void {
  const json = process.argv.includes('--json');
  const cost = { 1_000: eventCost(1_000), 10_000: eventCost(10_000), 100_000: eventCost(100_000) };
  const { steadyBytes, peakBytes } = relistHeap();
  const result = {
    eventCostNs: cost,
    costRatio100kVs1k: cost[100_000] / cost[1_000],
    relist100k: { steadyMiB: steadyBytes / 2 ** 20, peakMiB: peakBytes / 2 ** 20, peakVsSteady: peakBytes / steadyBytes },
    goals: { costRatio100kVs1k: '<= 1.5', peakVsSteady: '<= 2' },
  };
  if (json) { console.log(JSON.stringify(result)); return; }
  console.log('core benchmark (node %s)', process.version);
  console.log('  cost per applied watch event:');
  for (const [n, ns] of Object.entries(cost)) console.log(`    ${String(n).padStart(7)} cached  ${(ns / 1000).toFixed(2).padStart(7)} µs/event`);
  console.log(`  cost 100k / 1k:         ${result.costRatio100kVs1k.toFixed(2)}  (goal <= 1.5)`);
  console.log(`  100k store steady heap: ${result.relist100k.steadyMiB.toFixed(1)} MiB`);
  console.log(`  100k relist peak heap:  ${result.relist100k.peakMiB.toFixed(1)} MiB  (${result.relist100k.peakVsSteady.toFixed(2)}x steady, goal <= 2)`);
}

if (import.meta.main ?? process.argv[1]?.endsWith('core.bench.ts')) main();
