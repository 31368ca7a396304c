/**
 * Typed descriptors of the built-in resources most controllers watch, typed with client-node's
 * models as the wire carries them: `factory.informerFor(pods)` is a `SharedInformer<Wire<V1Pod>>`,
 * whose timestamps are the server's strings (client-node's `V1Pod` declares `Date`s; see `Wire`).
 */
import type {
  CoreV1Event,
  EventsV1Event,
  V1ConfigMap,
  V1CronJob,
  V1CustomResourceDefinition,
  V1DaemonSet,
  V1Deployment,
  V1Endpoints,
  V1Ingress,
  V1Job,
  V1Lease,
  V1Namespace,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1ReplicaSet,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { KubeObject, ResourceDescriptor, Wire } from '@rxinformer/core';

/** A resource descriptor whose kind is known (every built-in, and every discovered resource). */
export interface KubeResource<T extends KubeObject = KubeObject> extends ResourceDescriptor<T> {
  /** E.g. `Pod`: required here, for `apiVersion`/`kind` lookups and display. */
  kind: string;
}

/**
 * Describes a resource by hand, e.g. a CRD whose scope you know (else use `discoverResource`).
 * Its objects are typed `Wire<T>`: what the cache holds, each `Date` of `T` a string.
 *
 * @example
 * interface Widget extends KubernetesObject { spec: { size: number } }
 * const widgets = defineResource<Widget>({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
 * factory.informerFor(widgets); // SharedInformer<Wire<Widget>>: metadata.creationTimestamp is a string
 */
export function defineResource<T extends KubeObject = KubeObject>(d: {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}): KubeResource<Wire<T>> {
  return Object.freeze({ group: d.group, version: d.version, resource: d.resource, kind: d.kind, namespaced: d.namespaced });
}

/**
 * `apiVersion` of a descriptor: `v1` for the core group, `group/version` otherwise.
 *
 * @example
 * apiVersionOf(pods);        // 'v1'
 * apiVersionOf(deployments); // 'apps/v1'
 */
export function apiVersionOf(r: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

const core = <T extends KubeObject>(resource: string, kind: string, namespaced = true) =>
  defineResource<T>({ group: '', version: 'v1', resource, kind, namespaced });

// core/v1
/** core/v1 Pods: `informerFor(pods)` is a `SharedInformer<Wire<V1Pod>>`. */
export const pods = core<V1Pod>('pods', 'Pod');
/** core/v1 Services. */
export const services = core<V1Service>('services', 'Service');
/** core/v1 Endpoints. */
export const endpoints = core<V1Endpoints>('endpoints', 'Endpoints');
/** core/v1 ConfigMaps. */
export const configMaps = core<V1ConfigMap>('configmaps', 'ConfigMap');
/** core/v1 Secrets. Caveat: the cache holds their data; scope the informer as narrowly as you can. */
export const secrets = core<V1Secret>('secrets', 'Secret');
/** core/v1 Nodes (cluster-scoped). */
export const nodes = core<V1Node>('nodes', 'Node', false);
/** core/v1 Namespaces (cluster-scoped). */
export const namespaces = core<V1Namespace>('namespaces', 'Namespace', false);
/** core/v1 Events. */
export const events = core<CoreV1Event>('events', 'Event');
/** core/v1 PersistentVolumeClaims. */
export const persistentVolumeClaims = core<V1PersistentVolumeClaim>('persistentvolumeclaims', 'PersistentVolumeClaim');
/** core/v1 PersistentVolumes (cluster-scoped). */
export const persistentVolumes = core<V1PersistentVolume>('persistentvolumes', 'PersistentVolume', false);
/** core/v1 ServiceAccounts. */
export const serviceAccounts = core<V1ServiceAccount>('serviceaccounts', 'ServiceAccount');

// apps/v1
/** apps/v1 Deployments. */
export const deployments = defineResource<V1Deployment>({
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
});
/** apps/v1 ReplicaSets. */
export const replicaSets = defineResource<V1ReplicaSet>({
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  namespaced: true,
});
/** apps/v1 StatefulSets. */
export const statefulSets = defineResource<V1StatefulSet>({
  group: 'apps',
  version: 'v1',
  resource: 'statefulsets',
  kind: 'StatefulSet',
  namespaced: true,
});
/** apps/v1 DaemonSets. */
export const daemonSets = defineResource<V1DaemonSet>({
  group: 'apps',
  version: 'v1',
  resource: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
});

// batch/v1
/** batch/v1 Jobs. */
export const jobs = defineResource<V1Job>({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true });
/** batch/v1 CronJobs. */
export const cronJobs = defineResource<V1CronJob>({
  group: 'batch',
  version: 'v1',
  resource: 'cronjobs',
  kind: 'CronJob',
  namespaced: true,
});

// others
/** networking.k8s.io/v1 Ingresses. */
export const ingresses = defineResource<V1Ingress>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
});
/** coordination.k8s.io/v1 Leases. */
export const leases = defineResource<V1Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
});
/** events.k8s.io/v1 Events (the newer Event API). */
export const eventsV1 = defineResource<EventsV1Event>({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
});
/** apiextensions.k8s.io/v1 CustomResourceDefinitions (cluster-scoped). */
export const customResourceDefinitions = defineResource<V1CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
});

/** Every built-in descriptor above, e.g. to resolve a kind without discovery. */
export const builtinResources: readonly KubeResource[] = Object.freeze([
  pods,
  services,
  endpoints,
  configMaps,
  secrets,
  nodes,
  namespaces,
  events,
  persistentVolumeClaims,
  persistentVolumes,
  serviceAccounts,
  deployments,
  replicaSets,
  statefulSets,
  daemonSets,
  jobs,
  cronJobs,
  ingresses,
  leases,
  eventsV1,
  customResourceDefinitions,
] as KubeResource[]);
