/**
 * The cells kube-apiserver 1.36.3 printed for these objects (probed with `as=Table` through
 * envtest; the times here are ours), as table tests. `test/presetColumns.test.ts` in
 * @rxinformer/client-node holds the same functions to the real server's cells, live.
 */
import { describe, expect, it } from '@jest/globals';
import { deploymentCells, nodeCells } from './kubectlColumns.ts';
import { podCells, type PodColumnsInput } from './podColumns.ts';
import { PRESETS } from './presets.ts';

const created = '2026-11-29T08:00:00Z';
const now = Date.parse('2026-11-29T08:10:00Z');
const meta = (name: string, extra: object = {}) => ({ name, namespace: 'probe', creationTimestamp: created, ...extra });
const c = (name: string, state: object, extra: object = {}) => ({ name, ready: false, restartCount: 0, state, ...extra });
const finished = (at: string) => ({ lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: at } } });

const pods: [string, PodColumnsInput, Partial<Record<string, string>>][] = [
  [
    'a crash-looping container, an init container done',
    {
      metadata: meta('web'),
      spec: { nodeName: 'n1', containers: [{}, {}], initContainers: [{ name: 'init' }] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.7' }],
        conditions: [{ type: 'Ready', status: 'False' }],
        initContainerStatuses: [c('init', { terminated: { exitCode: 0, reason: 'Completed' } }, { ready: true })],
        containerStatuses: [
          c('a', { running: {} }, { ready: true, restartCount: 2, ...finished('2026-11-29T08:01:00Z') }),
          c('b', { waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 5, ...finished('2026-11-29T08:06:00Z') }),
        ],
      },
    },
    { Name: 'web', Ready: '1/2', Status: 'CrashLoopBackOff', Restarts: '7 (4m ago)', Age: '10m', IP: '10.0.0.7', Node: 'n1' },
  ],
  [
    'succeeded',
    {
      metadata: meta('done'),
      spec: { containers: [{}] },
      status: { phase: 'Succeeded', containerStatuses: [c('done', { terminated: { exitCode: 0, reason: 'Completed' } })] },
    },
    { Ready: '0/1', Status: 'Completed', Restarts: '0', IP: '<none>', Node: '<none>' },
  ],
  [
    'killed by a signal, without a last state',
    {
      metadata: meta('p-exit'),
      spec: { containers: [{}, {}] },
      status: {
        phase: 'Running',
        containerStatuses: [
          c('a', { running: {} }, { ready: true }),
          c('b', { terminated: { exitCode: 137, signal: 9 } }, { restartCount: 1 }),
        ],
      },
    },
    { Ready: '1/2', Status: 'Signal:9', Restarts: '1' },
  ],
  [
    'initializing, with a sidecar, a nominated node and a readiness gate',
    {
      metadata: meta('p-init'),
      spec: {
        containers: [{}],
        initContainers: [{ name: 'i1' }, { name: 'i2' }, { name: 'side', restartPolicy: 'Always' }],
        readinessGates: [{ conditionType: 'example.com/gate' }],
      },
      status: {
        phase: 'Pending',
        nominatedNodeName: 'n9',
        initContainerStatuses: [
          c(
            'i1',
            { terminated: { exitCode: 0 } },
            { restartCount: 1, lastState: { terminated: { exitCode: 1, finishedAt: '2026-11-29T07:59:00Z' } } },
          ),
          c('i2', { waiting: { reason: 'PodInitializing' } }),
          c('side', { waiting: {} }),
        ],
      },
    },
    { Ready: '0/2', Status: 'Init:1/3', Restarts: '1 (11m ago)', 'Nominated Node': 'n9', 'Readiness Gates': '0/1' },
  ],
  [
    'a started sidecar and a completed container',
    {
      metadata: meta('p-side'),
      spec: {
        containers: [{}],
        initContainers: [{ name: 'side', restartPolicy: 'Always' }],
        readinessGates: [{ conditionType: 'example.com/gate' }, { conditionType: 'example.com/g2' }],
      },
      status: {
        phase: 'Running',
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Initialized', status: 'True' },
          { type: 'example.com/gate', status: 'True' },
        ],
        initContainerStatuses: [
          c('side', { running: {} }, { ready: true, started: true, restartCount: 3, ...finished('2026-11-29T07:00:00Z') }),
        ],
        containerStatuses: [c('a', { terminated: { exitCode: 0, reason: 'Completed' } })],
      },
    },
    { Ready: '1/2', Status: 'Completed', Restarts: '3 (70m ago)', 'Readiness Gates': '1/2' },
  ],
  [
    'being deleted',
    { metadata: meta('p-term', { deletionTimestamp: '2026-11-29T08:09:00Z' }), spec: { containers: [{}] }, status: { phase: 'Pending' } },
    { Ready: '0/1', Status: 'Terminating', Restarts: '0' },
  ],
  [
    'pending, no status yet',
    { metadata: meta('p-pending'), spec: { containers: [{}] }, status: { phase: 'Pending' } },
    { Status: 'Pending' },
  ],
  [
    'scheduling gated',
    {
      metadata: meta('p-gated'),
      spec: { containers: [{}] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    },
    { Ready: '0/1', Status: 'SchedulingGated' },
  ],
  [
    'the first container completed, another failed, a third runs',
    {
      metadata: meta('p-err'),
      spec: { containers: [{}, {}, {}] },
      status: {
        phase: 'Running',
        containerStatuses: [
          c('a', { terminated: { exitCode: 0, reason: 'Completed' } }),
          c('b', { terminated: { exitCode: 1, reason: 'Error' } }),
          c('c', { running: {} }, { ready: true }),
        ],
      },
    },
    { Ready: '1/3', Status: 'Error' },
  ],
  [
    'the first container completed, another runs, the pod is ready',
    {
      metadata: meta('p-run'),
      spec: { containers: [{}, {}] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [c('a', { terminated: { exitCode: 0, reason: 'Completed' } }), c('b', { running: {} }, { ready: true })],
      },
    },
    { Ready: '1/2', Status: 'Running' },
  ],
];

describe('podCells', () => {
  it.each(pods)('should print a pod %s as kube-apiserver does', (_what, pod, cells) => {
    expect(podCells(pod, now)).toMatchObject(cells);
  });

  it('should print the same from the pods preset as from the whole pod', () => {
    for (const [, pod] of pods) expect(podCells(PRESETS.pods(pod) as PodColumnsInput, now)).toEqual(podCells(pod, now));
  });
});

const nodes: [string, object, object][] = [
  [
    'ready, with a role, addresses and node info',
    {
      metadata: meta('n1', { labels: { 'node-role.kubernetes.io/worker': '' } }),
      spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'MemoryPressure', status: 'False' },
        ],
        addresses: [
          { type: 'InternalIP', address: '192.168.1.5' },
          { type: 'Hostname', address: 'n1' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.36.3',
          osImage: 'Ubuntu 24.04',
          kernelVersion: '6.8.0',
          containerRuntimeVersion: 'containerd://2.0.0',
          architecture: 'amd64',
        },
      },
    },
    ['n1', 'Ready', 'worker', '10m', 'v1.36.3', '192.168.1.5', '<none>', 'Ubuntu 24.04', '6.8.0 (amd64)', 'containerd://2.0.0'],
  ],
  [
    'not ready, cordoned, with roles of both labels',
    {
      metadata: meta('n2', {
        labels: { 'kubernetes.io/role': 'master', 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/a': '' },
      }),
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'False' }],
        addresses: [
          { type: 'ExternalIP', address: '1.2.3.4' },
          { type: 'InternalIP', address: '10.0.0.2' },
          { type: 'InternalIP', address: '10.0.0.3' },
        ],
        nodeInfo: { kubeletVersion: '', osImage: '', kernelVersion: '5.1', containerRuntimeVersion: '', architecture: '' },
      },
    },
    ['n2', 'NotReady,SchedulingDisabled', 'a,control-plane,master', '10m', '', '10.0.0.2', '1.2.3.4', '<unknown>', '5.1', '<unknown>'],
  ],
  [
    'ready Unknown',
    { metadata: meta('n3'), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    ['n3', 'NotReady', '<none>', '10m', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
  ],
  [
    'without conditions, with an architecture and no kernel',
    { metadata: meta('n4'), status: { nodeInfo: { kubeletVersion: 'v1', osImage: 'x', architecture: 'arm64' } } },
    ['n4', 'Unknown', '<none>', '10m', 'v1', '<none>', '<none>', 'x', '<unknown> (arm64)', '<unknown>'],
  ],
];

describe('nodeCells', () => {
  it.each(nodes)('should print a node %s as kube-apiserver does', (_what, node, cells) => {
    expect(Object.values(nodeCells(node, now))).toEqual(cells);
    expect(nodeCells(PRESETS.nodes(node), now)).toEqual(nodeCells(node, now));
  });
});

describe('deploymentCells', () => {
  it('should print deployments as kube-apiserver does, selectors in label selector syntax', () => {
    const d1 = {
      metadata: meta('d1'),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'd1' } },
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'nginx:1.27' },
              { name: 'b', image: 'busybox:1.36' },
            ],
          },
        },
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    const d2 = {
      metadata: meta('d2'),
      spec: {
        replicas: 1,
        selector: {
          matchLabels: { b: '2', a: '1' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['web', 'api'] },
            { key: 'x', operator: 'Exists' },
            { key: 'y', operator: 'NotIn', values: ['q'] },
            { key: 'z', operator: 'DoesNotExist' },
          ],
        },
        template: { spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    expect(Object.values(deploymentCells(d1, now))).toEqual(['d1', '2/3', 3, 2, '10m', 'a,b', 'nginx:1.27,busybox:1.36', 'app=d1']);
    expect(Object.values(deploymentCells(d2, now))).toEqual([
      'd2',
      '0/1',
      0,
      0,
      '10m',
      'c',
      'i',
      'a=1,b=2,tier in (api,web),x,y notin (q),!z',
    ]);
    expect(deploymentCells(PRESETS.deployments(d2), now)).toEqual(deploymentCells(d2, now));
    expect(deploymentCells({ spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Maybe' }] } } } as never, now).Selector).toBe(
      '<invalid>',
    );
  });
});
