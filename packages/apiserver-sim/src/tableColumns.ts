/**
 * The column definitions kube-apiserver 1.36.3 gives its Tables (`as=Table`) of the resources the
 * simulator prints as it does: pods, nodes, deployments, configmaps, namespaces and events (core and
 * events.k8s.io alike), custom resources without printer columns, and the default of the rest
 * (Name and Created At, as kube-apiserver prints CustomResourceDefinitions). Taken from the real
 * server's answers; the fidelity suite compares them.
 */

/** A column of a Table (`meta.k8s.io/v1 TableColumnDefinition`). */
export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** ObjectMeta's documentation of `name` and `creationTimestamp`, which many columns share. */
const NAME =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** NodeStatus's documentation of `addresses`, the source of both IP columns. */
const ADDRESSES =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

const col = (name: string, description: string, priority = 0, type = 'string', format = ''): ColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});
const nameColumn = (priority = 0): ColumnDefinition => col('Name', NAME, priority, 'string', 'name');

/** The columns of each resource printed as kube-apiserver prints it, by `group/resource`. */
export const COLUMNS: Readonly<Record<string, readonly ColumnDefinition[]>> = {
  '/pods': [
    nameColumn(),
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    col('Age', CREATED),
    col('IP', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col(
      'Node',
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
      1,
    ),
    col(
      'Nominated Node',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
      1,
    ),
    col(
      'Readiness Gates',
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      1,
    ),
  ],
  '/nodes': [
    nameColumn(),
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    col('Age', CREATED),
    col('Version', 'Kubelet Version reported by the node.'),
    col('Internal-IP', ADDRESSES, 1),
    col('External-IP', ADDRESSES, 1),
    col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    col('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    col('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  'apps/deployments': [
    nameColumn(),
    col('Ready', 'Number of the pod with ready state'),
    col('Up-to-date', 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.'),
    col('Available', 'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.'),
    col('Age', CREATED),
    col('Containers', 'Names of each container in the template.', 1),
    col('Images', 'Images referenced by each container in the template.', 1),
    col(
      'Selector',
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
      1,
    ),
  ],
  '/configmaps': [
    nameColumn(),
    col(
      'Data',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    col('Age', CREATED),
  ],
  '/namespaces': [nameColumn(), col('Status', 'The status of the namespace'), col('Age', CREATED)],
};

/** The columns of events, core and events.k8s.io alike. */
export const EVENT_COLUMNS: readonly ColumnDefinition[] = [
  col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
  col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
  col(
    'Reason',
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  col('Object', 'The object that this event is about.'),
  col(
    'Subobject',
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    1,
  ),
  col('Source', 'The component reporting this event. Should be a short machine understandable string.', 1),
  col('Message', 'A human-readable description of the status of this operation.'),
  col('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
  col('Count', 'The number of times this event has occurred.', 1),
  nameColumn(1),
];

/** The columns of a custom resource whose CRD declares no printer columns: Name, and an Age of type date. */
export const CUSTOM_COLUMNS: readonly ColumnDefinition[] = [nameColumn(), col('Age', CREATED, 0, 'date')];

/** kube-apiserver's default columns (its `DefaultTableConvertor`): Name, and Created At (RFC 3339). */
export const DEFAULT_COLUMNS: readonly ColumnDefinition[] = [nameColumn(), col('Created At', CREATED, 0, 'date')];
