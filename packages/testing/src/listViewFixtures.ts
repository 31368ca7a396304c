/**
 * Objects whose kubectl columns say something: pods crash-looping, initializing, with sidecars,
 * finished, failed, terminating, scheduling-gated; nodes ready, not ready, cordoned, with roles;
 * deployments with selectors of every operator; events with counts, series and sources. Their
 * times are days before `now`, so the "ago" of a restart or an event reads the same a second
 * later. `@rxinformer/testing/servers`' `createListViewObjects` writes them to a server;
 * `LIST_VIEW_CELLS` is what kube-apiserver 1.36.3 printed for them.
 */
/** RFC 3339 (seconds) and MicroTime `ms` before `now`. */
const ago = (now: number, ms: number) => new Date(now - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const micro = (now: number, ms: number) => new Date(now - ms).toISOString().replace(/Z$/, '000Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;

const container = (name: string) => ({ name, image: `registry.example/${name}:1` });
const status = (name: string, state: object, extra: object = {}) => ({
  name,
  image: `registry.example/${name}:1`,
  imageID: '',
  ready: false,
  restartCount: 0,
  state,
  ...extra,
});
const lastFailed = (now: number, ms: number) => ({
  lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: ago(now, ms + HOUR), finishedAt: ago(now, ms) } },
});

/** A pod of the list view: its name, spec, the status to patch in, and whether it is being deleted (with a finalizer). */
export interface ListViewPod {
  name: string;
  spec: object;
  status: object;
  finalizer?: boolean;
}

/** The pods, their times before `now`. */
export function listViewPods(now: number): ListViewPod[] {
  return [...containerPods(now), ...lifecyclePods(now)];
}

/** Pods whose containers say how they run: crash-looping, killed, failed beside a running one, running. */
function containerPods(now: number): ListViewPod[] {
  return [
    {
      name: 'web',
      spec: { nodeName: 'n1', initContainers: [container('init')], containers: [container('a'), container('b')] },
      status: {
        phase: 'Running',
        podIP: '10.0.0.7',
        podIPs: [{ ip: '10.0.0.7' }],
        conditions: [{ type: 'Ready', status: 'False' }],
        initContainerStatuses: [status('init', { terminated: { exitCode: 0, reason: 'Completed' } }, { ready: true })],
        containerStatuses: [
          status(
            'a',
            { running: { startedAt: ago(now, DAY) } },
            { ready: true, started: true, restartCount: 2, ...lastFailed(now, 3 * DAY) },
          ),
          status(
            'b',
            { waiting: { reason: 'CrashLoopBackOff' } },
            { started: false, restartCount: 5, ...lastFailed(now, 2 * DAY + 3 * HOUR) },
          ),
        ],
      },
    },
    {
      name: 'signal',
      spec: { containers: [container('a'), container('b')] },
      status: {
        phase: 'Running',
        containerStatuses: [
          status('a', { running: {} }, { ready: true }),
          status('b', { terminated: { exitCode: 137, signal: 9 } }, { restartCount: 1 }),
        ],
      },
    },
    {
      name: 'error',
      spec: { containers: [container('a'), container('b'), container('c')] },
      status: {
        phase: 'Running',
        containerStatuses: [
          status('a', { terminated: { exitCode: 0, reason: 'Completed' } }),
          status('b', { terminated: { exitCode: 1, reason: 'Error' } }),
          status('c', { running: {} }, { ready: true }),
        ],
      },
    },
    {
      name: 'running',
      spec: { containers: [container('a'), container('b')] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          status('a', { terminated: { exitCode: 0, reason: 'Completed' } }),
          status('b', { running: {} }, { ready: true }),
        ],
      },
    },
  ];
}

/** Pods in the other stages of a pod's life: finished, failed, initializing, with a sidecar, gated, pending, being deleted. */
function lifecyclePods(now: number): ListViewPod[] {
  return [
    {
      name: 'done',
      spec: { containers: [container('job')], restartPolicy: 'Never' },
      status: { phase: 'Succeeded', containerStatuses: [status('job', { terminated: { exitCode: 0, reason: 'Completed' } })] },
    },
    { name: 'failed', spec: { containers: [container('job')], restartPolicy: 'Never' }, status: { phase: 'Failed' } },
    {
      name: 'init',
      spec: {
        initContainers: [container('i1'), container('i2'), { ...container('side'), restartPolicy: 'Always' }],
        containers: [container('a')],
        readinessGates: [{ conditionType: 'example.com/gate' }],
      },
      status: {
        phase: 'Pending',
        nominatedNodeName: 'n9',
        initContainerStatuses: [
          status('i1', { terminated: { exitCode: 0 } }, { restartCount: 1, ...lastFailed(now, 4 * DAY) }),
          status('i2', { waiting: { reason: 'PodInitializing' } }),
          status('side', { waiting: {} }),
        ],
      },
    },
    {
      name: 'sidecar',
      spec: {
        initContainers: [{ ...container('side'), restartPolicy: 'Always' }],
        containers: [container('a')],
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
          status('side', { running: {} }, { ready: true, started: true, restartCount: 3, ...lastFailed(now, 5 * DAY) }),
        ],
        containerStatuses: [status('a', { terminated: { exitCode: 0, reason: 'Completed' } })],
      },
    },
    {
      name: 'gated',
      spec: { containers: [container('a')] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    },
    { name: 'pending', spec: { containers: [container('a')] }, status: { phase: 'Pending' } },
    { name: 'terminating', spec: { containers: [container('a')] }, status: { phase: 'Running' }, finalizer: true },
    { name: 'lost', spec: { containers: [container('a')] }, status: { phase: 'Running', reason: 'NodeLost' }, finalizer: true },
  ];
}

/** The nodes: name, labels, spec, and the status to patch in; times before `now`. */
export function listViewNodes(now: number): { name: string; labels: Record<string, string>; spec: object; status: object }[] {
  const info = (o: object) => ({ machineID: '', systemUUID: '', bootID: '', kubeProxyVersion: '', operatingSystem: 'linux', ...o });
  return [
    {
      name: 'n1',
      labels: { 'node-role.kubernetes.io/worker': '' },
      spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' },
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: ago(now, HOUR), lastTransitionTime: ago(now, DAY) },
          { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: ago(now, HOUR), lastTransitionTime: ago(now, DAY) },
        ],
        addresses: [
          { type: 'InternalIP', address: '192.168.1.5' },
          { type: 'Hostname', address: 'n1' },
        ],
        nodeInfo: info({
          kubeletVersion: 'v1.36.3',
          osImage: 'Ubuntu 24.04',
          kernelVersion: '6.8.0',
          containerRuntimeVersion: 'containerd://2.0.0',
          architecture: 'amd64',
        }),
      },
    },
    {
      name: 'n2',
      labels: { 'kubernetes.io/role': 'master', 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/a': '' },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'False', lastHeartbeatTime: ago(now, HOUR), lastTransitionTime: ago(now, DAY) }],
        addresses: [
          { type: 'ExternalIP', address: '1.2.3.4' },
          { type: 'InternalIP', address: '10.0.0.2' },
        ],
        nodeInfo: info({ kubeletVersion: '', osImage: '', kernelVersion: '5.1', containerRuntimeVersion: '', architecture: '' }),
      },
    },
    { name: 'n3', labels: {}, spec: {}, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    {
      name: 'n4',
      labels: {},
      spec: {},
      status: {
        nodeInfo: info({ kubeletVersion: 'v1', osImage: 'x', kernelVersion: '', containerRuntimeVersion: '', architecture: 'arm64' }),
      },
    },
  ];
}

/** The deployments: name, spec, and the status to patch in (none for `d2`, whose replicas the server defaults). */
export function listViewDeployments(): { name: string; spec: object; status?: object }[] {
  return [
    {
      name: 'd1',
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'd1' } },
        template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [container('a'), container('b')] } },
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2, observedGeneration: 1 },
    },
    {
      name: 'd2',
      spec: {
        selector: {
          matchLabels: { b: '2', a: '1' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['web', 'api'] },
            { key: 'x', operator: 'Exists' },
            { key: 'y', operator: 'NotIn', values: ['q'] },
            { key: 'z', operator: 'DoesNotExist' },
          ],
        },
        template: { metadata: { labels: { a: '1', b: '2', tier: 'web', x: '1' } }, spec: { containers: [container('c')] } },
      },
    },
  ];
}

/** Core events of `ns`: a counted one, one of a series with a reporting controller, a bare one; times before `now`. */
export function listViewCoreEvents(ns: string, now: number): object[] {
  const involved = { kind: 'Pod', name: 'web', namespace: ns };
  return [
    {
      metadata: { name: 'e1' },
      involvedObject: involved,
      reason: 'Started',
      message: ' Started container a\n',
      type: 'Normal',
      count: 3,
      firstTimestamp: ago(now, 3 * DAY),
      lastTimestamp: ago(now, 2 * DAY),
      source: { component: 'kubelet', host: 'n1' },
    },
    {
      metadata: { name: 'e2' },
      involvedObject: { kind: 'Deployment', name: 'd2', namespace: ns, fieldPath: 'spec.containers{c}' },
      reason: 'Scaled',
      message: 'hi',
      type: 'Warning',
      eventTime: micro(now, 4 * DAY),
      series: { count: 4, lastObservedTime: micro(now, 3 * DAY) },
      reportingComponent: 'ctrl',
      reportingInstance: 'inst-1',
      action: 'Scale',
      source: {},
    },
    { metadata: { name: 'e3' }, involvedObject: involved, reason: 'R', message: 'm' },
  ];
}

/** events.k8s.io/v1 events of `ns`: a singleton and a series; times before `now`. */
export function listViewEventsV1(ns: string, now: number): object[] {
  return [
    {
      metadata: { name: 'v1' },
      regarding: { kind: 'Pod', name: 'web', namespace: ns },
      reason: 'Pulled',
      note: 'pulled the image',
      type: 'Normal',
      action: 'Pull',
      eventTime: micro(now, 4 * DAY),
      reportingController: 'example.com/kubelet',
      reportingInstance: 'n1',
    },
    {
      metadata: { name: 'v2' },
      regarding: { kind: 'Pod', name: 'init', namespace: ns },
      reason: 'Flapped',
      note: 'again',
      type: 'Warning',
      action: 'Check',
      eventTime: micro(now, 5 * DAY),
      series: { count: 7, lastObservedTime: micro(now, 2 * DAY) },
      reportingController: 'example.com/watcher',
      reportingInstance: 'w-0',
    },
  ];
}

/** A cell of the creation age: left out of `LIST_VIEW_CELLS` (an object is as young as its test). */
export const AGE = '<age>';

/**
 * The Table cells kube-apiserver 1.36.3 printed for the objects above (`includeObject=None`, by
 * name; node names without their prefix), creation ages as `AGE`; and the row conditions of pods.
 */
export const LIST_VIEW_CELLS = {
  pods: {
    done: ['done', '0/1', 'Completed', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    error: ['error', '1/3', 'Error', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    failed: ['failed', '0/1', 'Failed', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    gated: ['gated', '0/1', 'SchedulingGated', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    init: ['init', '0/2', 'Init:1/3', '1 (4d ago)', AGE, '<none>', '<none>', 'n9', '0/1'],
    sidecar: ['sidecar', '1/2', 'Completed', '3 (5d ago)', AGE, '<none>', '<none>', '<none>', '1/2'],
    lost: ['lost', '0/1', 'Unknown', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    pending: ['pending', '0/1', 'Pending', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    running: ['running', '1/2', 'Running', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    signal: ['signal', '1/2', 'Signal:9', '1', AGE, '<none>', '<none>', '<none>', '<none>'],
    terminating: ['terminating', '0/1', 'Terminating', '0', AGE, '<none>', '<none>', '<none>', '<none>'],
    web: ['web', '1/2', 'CrashLoopBackOff', '7 (2d3h ago)', AGE, '10.0.0.7', 'n1', '<none>', '<none>'],
  } as Record<string, unknown[]>,
  nodes: {
    n1: ['n1', 'Ready', 'worker', AGE, 'v1.36.3', '192.168.1.5', '<none>', 'Ubuntu 24.04', '6.8.0 (amd64)', 'containerd://2.0.0'],
    n2: ['n2', 'NotReady,SchedulingDisabled', 'a,control-plane,master', AGE, '', '10.0.0.2', '1.2.3.4', '<unknown>', '5.1', '<unknown>'],
    n3: ['n3', 'NotReady', '<none>', AGE, '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
    n4: ['n4', 'Unknown', '<none>', AGE, 'v1', '<none>', '<none>', 'x', '<unknown> (arm64)', '<unknown>'],
  } as Record<string, unknown[]>,
  deployments: {
    d1: ['d1', '2/3', 3, 2, AGE, 'a,b', 'registry.example/a:1,registry.example/b:1', 'app=d1'],
    d2: ['d2', '0/1', 0, 0, AGE, 'c', 'registry.example/c:1', 'a=1,b=2,tier in (api,web),x,y notin (q),!z'],
  } as Record<string, unknown[]>,
  coreEvents: {
    e1: ['2d', 'Normal', 'Started', 'pod/web', '', 'kubelet, n1', 'Started container a', '3d', 3, 'e1'],
    e2: ['3d', 'Warning', 'Scaled', 'deployment/d2', 'spec.containers{c}', 'ctrl, inst-1', 'hi', '4d', 4, 'e2'],
    e3: ['<unknown>', '', 'R', 'pod/web', '', '', 'm', '<unknown>', 1, 'e3'],
  } as Record<string, unknown[]>,
  eventsV1: {
    v1: ['4d', 'Normal', 'Pulled', 'pod/web', '', 'example.com/kubelet, n1', 'pulled the image', '4d', 1, 'v1'],
    v2: ['2d', 'Warning', 'Flapped', 'pod/init', '', 'example.com/watcher, w-0', 'again', '5d', 7, 'v2'],
  } as Record<string, unknown[]>,
};
