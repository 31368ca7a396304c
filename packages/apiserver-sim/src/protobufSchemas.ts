/**
 * Message schemas of the built-in kinds the simulator decodes from protobuf request bodies:
 * field number → `[JSON name, type, flags]`. Field numbers and names are those of the
 * Kubernetes `generated.proto` files (k8s.io/api core/v1, apps/v1, batch/v1;
 * k8s.io/apimachinery meta/v1); a field listed in a comment as "not decoded" makes a body that
 * sets it answer 415 rather than being silently dropped.
 *
 * Types: `string`, `bytes` (base64 in JSON), `int32`, `int64`, `bool`, `double`, `quantity`
 * (resource.Quantity, a string in JSON), `time` (metav1.Time, RFC 3339), `microTime`,
 * `intOrString`, or the name of another message here. Flags: `repeated`, `map` (a
 * `map<string, type>`), `keep` (a pointer or non-omitempty Go field: a zero value stays in the
 * JSON), `inline` (an embedded Go struct whose fields join the parent's).
 */

/** The type of a schema field: a scalar, a well-known meta type, or a message name. */
export type FieldType = string;

/** One field: its JSON name, type and space-separated flags. */
export type FieldSchema = readonly [json: string, type: FieldType, flags?: string];

/** A message: field number → field. */
export type MessageSchema = Readonly<Record<number, FieldSchema>>;

/** Every message the decoder knows, by its proto name. */
export const MESSAGE_SCHEMAS: Readonly<Record<string, MessageSchema>> = {
  // k8s.io/apimachinery pkg/api/resource, meta/v1 Time, pkg/util/intstr
  Quantity: { 1: ['string', 'string'] },
  Time: { 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] },
  IntOrString: { 1: ['type', 'int64'], 2: ['intVal', 'int32'], 3: ['strVal', 'string'] },
  // k8s.io/apimachinery meta/v1
  // ObjectMeta.managedFields (ManagedFieldsEntry) not decoded
  ObjectMeta: {
    1: ['name', 'string'],
    2: ['generateName', 'string'],
    3: ['namespace', 'string'],
    4: ['selfLink', 'string'],
    5: ['uid', 'string'],
    6: ['resourceVersion', 'string'],
    7: ['generation', 'int64'],
    8: ['creationTimestamp', 'time'],
    9: ['deletionTimestamp', 'time'],
    10: ['deletionGracePeriodSeconds', 'int64', 'keep'],
    11: ['labels', 'string', 'map'],
    12: ['annotations', 'string', 'map'],
    13: ['ownerReferences', 'OwnerReference', 'repeated'],
    14: ['finalizers', 'string', 'repeated'],
  },
  OwnerReference: {
    5: ['apiVersion', 'string', 'keep'],
    1: ['kind', 'string', 'keep'],
    3: ['name', 'string', 'keep'],
    4: ['uid', 'string', 'keep'],
    6: ['controller', 'bool', 'keep'],
    7: ['blockOwnerDeletion', 'bool', 'keep'],
  },
  LabelSelector: { 1: ['matchLabels', 'string', 'map'], 2: ['matchExpressions', 'LabelSelectorRequirement', 'repeated'] },
  LabelSelectorRequirement: { 1: ['key', 'string', 'keep'], 2: ['operator', 'string', 'keep'], 3: ['values', 'string', 'repeated'] },
  DeleteOptions: {
    1: ['gracePeriodSeconds', 'int64', 'keep'],
    2: ['preconditions', 'Preconditions'],
    3: ['orphanDependents', 'bool', 'keep'],
    4: ['propagationPolicy', 'string', 'keep'],
    5: ['dryRun', 'string', 'repeated'],
    6: ['ignoreStoreReadErrorWithClusterBreakingPotential', 'bool', 'keep'],
  },
  Preconditions: { 1: ['uid', 'string', 'keep'], 2: ['resourceVersion', 'string', 'keep'] },
  // k8s.io/api core/v1
  Namespace: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'NamespaceSpec'], 3: ['status', 'NamespaceStatus'] },
  NamespaceSpec: { 1: ['finalizers', 'string', 'repeated'] },
  NamespaceStatus: { 1: ['phase', 'string'], 2: ['conditions', 'NamespaceCondition', 'repeated'] },
  NamespaceCondition: {
    1: ['type', 'string', 'keep'],
    2: ['status', 'string', 'keep'],
    4: ['lastTransitionTime', 'time'],
    5: ['reason', 'string'],
    6: ['message', 'string'],
  },
  ConfigMap: {
    1: ['metadata', 'ObjectMeta'],
    4: ['immutable', 'bool', 'keep'],
    2: ['data', 'string', 'map'],
    3: ['binaryData', 'bytes', 'map'],
  },
  Secret: {
    1: ['metadata', 'ObjectMeta'],
    5: ['immutable', 'bool', 'keep'],
    2: ['data', 'bytes', 'map'],
    4: ['stringData', 'string', 'map'],
    3: ['type', 'string'],
  },
  ServiceAccount: {
    1: ['metadata', 'ObjectMeta'],
    2: ['secrets', 'ObjectReference', 'repeated'],
    3: ['imagePullSecrets', 'LocalObjectReference', 'repeated'],
    4: ['automountServiceAccountToken', 'bool', 'keep'],
  },
  ObjectReference: {
    1: ['kind', 'string'],
    2: ['namespace', 'string'],
    3: ['name', 'string'],
    4: ['uid', 'string'],
    5: ['apiVersion', 'string'],
    6: ['resourceVersion', 'string'],
    7: ['fieldPath', 'string'],
  },
  LocalObjectReference: { 1: ['name', 'string'] },
  Pod: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'], 3: ['status', 'PodStatus'] },
  // PodSpec.volumes (Volume) not decoded
  // PodSpec.ephemeralContainers (EphemeralContainer) not decoded
  // PodSpec.securityContext (PodSecurityContext) not decoded
  // PodSpec.affinity (Affinity) not decoded
  // PodSpec.tolerations (Toleration) not decoded
  // PodSpec.hostAliases (HostAlias) not decoded
  // PodSpec.dnsConfig (PodDNSConfig) not decoded
  // PodSpec.readinessGates (PodReadinessGate) not decoded
  // PodSpec.topologySpreadConstraints (TopologySpreadConstraint) not decoded
  // PodSpec.os (PodOS) not decoded
  // PodSpec.schedulingGates (PodSchedulingGate) not decoded
  // PodSpec.resourceClaims (PodResourceClaim) not decoded
  // PodSpec.schedulingGroup (PodSchedulingGroup) not decoded
  // PodSpec.evictionResponders (EvictionResponder) not decoded
  PodSpec: {
    20: ['initContainers', 'Container', 'repeated'],
    2: ['containers', 'Container', 'repeated'],
    3: ['restartPolicy', 'string'],
    4: ['terminationGracePeriodSeconds', 'int64', 'keep'],
    5: ['activeDeadlineSeconds', 'int64', 'keep'],
    6: ['dnsPolicy', 'string'],
    7: ['nodeSelector', 'string', 'map'],
    8: ['serviceAccountName', 'string'],
    9: ['serviceAccount', 'string'],
    21: ['automountServiceAccountToken', 'bool', 'keep'],
    10: ['nodeName', 'string'],
    11: ['hostNetwork', 'bool'],
    12: ['hostPID', 'bool'],
    13: ['hostIPC', 'bool'],
    27: ['shareProcessNamespace', 'bool', 'keep'],
    15: ['imagePullSecrets', 'LocalObjectReference', 'repeated'],
    16: ['hostname', 'string'],
    17: ['subdomain', 'string'],
    19: ['schedulerName', 'string'],
    24: ['priorityClassName', 'string'],
    25: ['priority', 'int32', 'keep'],
    29: ['runtimeClassName', 'string', 'keep'],
    30: ['enableServiceLinks', 'bool', 'keep'],
    31: ['preemptionPolicy', 'string', 'keep'],
    32: ['overhead', 'quantity', 'map'],
    35: ['setHostnameAsFQDN', 'bool', 'keep'],
    37: ['hostUsers', 'bool', 'keep'],
    40: ['resources', 'ResourceRequirements'],
    41: ['hostnameOverride', 'string', 'keep'],
  },
  // PodStatus.conditions (PodCondition) not decoded
  // PodStatus.hostIPs (HostIP) not decoded
  // PodStatus.podIPs (PodIP) not decoded
  // PodStatus.initContainerStatuses (ContainerStatus) not decoded
  // PodStatus.containerStatuses (ContainerStatus) not decoded
  // PodStatus.ephemeralContainerStatuses (ContainerStatus) not decoded
  // PodStatus.resourceClaimStatuses (PodResourceClaimStatus) not decoded
  // PodStatus.extendedResourceClaimStatus (PodExtendedResourceClaimStatus) not decoded
  // PodStatus.nodeAllocatableResourceClaimStatuses (NodeAllocatableResourceClaimStatus) not decoded
  // PodStatus.volumeHealth (PodVolumeHealth) not decoded
  PodStatus: {
    17: ['observedGeneration', 'int64'],
    1: ['phase', 'string'],
    3: ['message', 'string'],
    4: ['reason', 'string'],
    11: ['nominatedNodeName', 'string'],
    5: ['hostIP', 'string'],
    6: ['podIP', 'string'],
    7: ['startTime', 'time'],
    9: ['qosClass', 'string'],
    14: ['resize', 'string'],
    19: ['allocatedResources', 'quantity', 'map'],
    20: ['resources', 'ResourceRequirements'],
  },
  PodTemplateSpec: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'] },
  // Container.resizePolicy (ContainerResizePolicy) not decoded
  // Container.restartPolicyRules (ContainerRestartRule) not decoded
  // Container.volumeDevices (VolumeDevice) not decoded
  // Container.livenessProbe (Probe) not decoded
  // Container.readinessProbe (Probe) not decoded
  // Container.startupProbe (Probe) not decoded
  // Container.lifecycle (Lifecycle) not decoded
  // Container.securityContext (SecurityContext) not decoded
  Container: {
    1: ['name', 'string', 'keep'],
    2: ['image', 'string'],
    3: ['command', 'string', 'repeated'],
    4: ['args', 'string', 'repeated'],
    5: ['workingDir', 'string'],
    6: ['ports', 'ContainerPort', 'repeated'],
    19: ['envFrom', 'EnvFromSource', 'repeated'],
    7: ['env', 'EnvVar', 'repeated'],
    8: ['resources', 'ResourceRequirements'],
    24: ['restartPolicy', 'string', 'keep'],
    9: ['volumeMounts', 'VolumeMount', 'repeated'],
    13: ['terminationMessagePath', 'string'],
    20: ['terminationMessagePolicy', 'string'],
    14: ['imagePullPolicy', 'string'],
    16: ['stdin', 'bool'],
    17: ['stdinOnce', 'bool'],
    18: ['tty', 'bool'],
  },
  ContainerPort: {
    1: ['name', 'string'],
    2: ['hostPort', 'int32'],
    3: ['containerPort', 'int32', 'keep'],
    4: ['protocol', 'string'],
    5: ['hostIP', 'string'],
  },
  EnvVar: { 1: ['name', 'string', 'keep'], 2: ['value', 'string'], 3: ['valueFrom', 'EnvVarSource'] },
  // EnvVarSource.fileKeyRef (FileKeySelector) not decoded
  EnvVarSource: {
    1: ['fieldRef', 'ObjectFieldSelector'],
    2: ['resourceFieldRef', 'ResourceFieldSelector'],
    3: ['configMapKeyRef', 'ConfigMapKeySelector'],
    4: ['secretKeyRef', 'SecretKeySelector'],
  },
  ObjectFieldSelector: { 1: ['apiVersion', 'string'], 2: ['fieldPath', 'string', 'keep'] },
  ResourceFieldSelector: { 1: ['containerName', 'string'], 2: ['resource', 'string', 'keep'], 3: ['divisor', 'quantity'] },
  ConfigMapKeySelector: {
    1: ['localObjectReference', 'LocalObjectReference', 'inline'],
    2: ['key', 'string', 'keep'],
    3: ['optional', 'bool', 'keep'],
  },
  SecretKeySelector: {
    1: ['localObjectReference', 'LocalObjectReference', 'inline'],
    2: ['key', 'string', 'keep'],
    3: ['optional', 'bool', 'keep'],
  },
  EnvFromSource: { 1: ['prefix', 'string'], 2: ['configMapRef', 'ConfigMapEnvSource'], 3: ['secretRef', 'SecretEnvSource'] },
  ConfigMapEnvSource: { 1: ['localObjectReference', 'LocalObjectReference', 'inline'], 2: ['optional', 'bool', 'keep'] },
  SecretEnvSource: { 1: ['localObjectReference', 'LocalObjectReference', 'inline'], 2: ['optional', 'bool', 'keep'] },
  ResourceRequirements: {
    1: ['limits', 'quantity', 'map'],
    2: ['requests', 'quantity', 'map'],
    3: ['claims', 'ResourceClaim', 'repeated'],
  },
  ResourceClaim: { 1: ['name', 'string', 'keep'], 2: ['request', 'string'] },
  VolumeMount: {
    1: ['name', 'string', 'keep'],
    2: ['readOnly', 'bool'],
    7: ['recursiveReadOnly', 'string', 'keep'],
    3: ['mountPath', 'string', 'keep'],
    4: ['subPath', 'string'],
    5: ['mountPropagation', 'string', 'keep'],
    6: ['subPathExpr', 'string'],
    8: ['bindMountOptions', 'string', 'repeated'],
  },
  Service: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ServiceSpec'], 3: ['status', 'ServiceStatus'] },
  // ServiceSpec.sessionAffinityConfig (SessionAffinityConfig) not decoded
  ServiceSpec: {
    1: ['ports', 'ServicePort', 'repeated'],
    2: ['selector', 'string', 'map'],
    3: ['clusterIP', 'string'],
    18: ['clusterIPs', 'string', 'repeated'],
    4: ['type', 'string'],
    5: ['externalIPs', 'string', 'repeated'],
    7: ['sessionAffinity', 'string'],
    8: ['loadBalancerIP', 'string'],
    9: ['loadBalancerSourceRanges', 'string', 'repeated'],
    10: ['externalName', 'string'],
    11: ['externalTrafficPolicy', 'string'],
    12: ['healthCheckNodePort', 'int32'],
    13: ['publishNotReadyAddresses', 'bool'],
    19: ['ipFamilies', 'string', 'repeated'],
    17: ['ipFamilyPolicy', 'string', 'keep'],
    20: ['allocateLoadBalancerNodePorts', 'bool', 'keep'],
    21: ['loadBalancerClass', 'string', 'keep'],
    22: ['internalTrafficPolicy', 'string', 'keep'],
    23: ['trafficDistribution', 'string', 'keep'],
  },
  ServicePort: {
    1: ['name', 'string'],
    2: ['protocol', 'string'],
    6: ['appProtocol', 'string', 'keep'],
    3: ['port', 'int32', 'keep'],
    4: ['targetPort', 'intOrString'],
    5: ['nodePort', 'int32'],
  },
  // ServiceStatus.conditions (Condition) not decoded
  ServiceStatus: { 1: ['loadBalancer', 'LoadBalancerStatus'] },
  // LoadBalancerStatus.ingress (LoadBalancerIngress) not decoded
  LoadBalancerStatus: {},
  ResourceQuota: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ResourceQuotaSpec'], 3: ['status', 'ResourceQuotaStatus'] },
  // ResourceQuotaSpec.scopeSelector (ScopeSelector) not decoded
  ResourceQuotaSpec: { 1: ['hard', 'quantity', 'map'], 2: ['scopes', 'string', 'repeated'] },
  ResourceQuotaStatus: { 1: ['hard', 'quantity', 'map'], 2: ['used', 'quantity', 'map'] },
  // k8s.io/api apps/v1
  Deployment: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'DeploymentSpec'], 3: ['status', 'DeploymentStatus'] },
  DeploymentSpec: {
    1: ['replicas', 'int32', 'keep'],
    2: ['selector', 'LabelSelector'],
    3: ['template', 'PodTemplateSpec'],
    4: ['strategy', 'DeploymentStrategy'],
    5: ['minReadySeconds', 'int32'],
    6: ['revisionHistoryLimit', 'int32', 'keep'],
    7: ['paused', 'bool'],
    9: ['progressDeadlineSeconds', 'int32', 'keep'],
  },
  DeploymentStrategy: { 1: ['type', 'string'], 2: ['rollingUpdate', 'RollingUpdateDeployment'] },
  RollingUpdateDeployment: { 1: ['maxUnavailable', 'intOrString'], 2: ['maxSurge', 'intOrString'] },
  // DeploymentStatus.conditions (DeploymentCondition) not decoded
  DeploymentStatus: {
    1: ['observedGeneration', 'int64'],
    2: ['replicas', 'int32'],
    3: ['updatedReplicas', 'int32'],
    7: ['readyReplicas', 'int32'],
    4: ['availableReplicas', 'int32'],
    5: ['unavailableReplicas', 'int32'],
    9: ['terminatingReplicas', 'int32', 'keep'],
    8: ['collisionCount', 'int32', 'keep'],
  },
  // k8s.io/api batch/v1
  Job: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'JobSpec'], 3: ['status', 'JobStatus'] },
  // JobSpec.podFailurePolicy (PodFailurePolicy) not decoded
  // JobSpec.successPolicy (SuccessPolicy) not decoded
  // JobSpec.scheduling (JobSchedulingConfiguration) not decoded
  JobSpec: {
    1: ['parallelism', 'int32', 'keep'],
    2: ['completions', 'int32', 'keep'],
    3: ['activeDeadlineSeconds', 'int64', 'keep'],
    7: ['backoffLimit', 'int32', 'keep'],
    12: ['backoffLimitPerIndex', 'int32', 'keep'],
    13: ['maxFailedIndexes', 'int32', 'keep'],
    4: ['selector', 'LabelSelector'],
    5: ['manualSelector', 'bool', 'keep'],
    6: ['template', 'PodTemplateSpec'],
    8: ['ttlSecondsAfterFinished', 'int32', 'keep'],
    9: ['completionMode', 'string', 'keep'],
    10: ['suspend', 'bool', 'keep'],
    14: ['podReplacementPolicy', 'string', 'keep'],
    15: ['managedBy', 'string', 'keep'],
  },
  // JobStatus.conditions (JobCondition) not decoded
  // JobStatus.uncountedTerminatedPods (UncountedTerminatedPods) not decoded
  JobStatus: {
    2: ['startTime', 'time'],
    3: ['completionTime', 'time'],
    4: ['active', 'int32'],
    5: ['succeeded', 'int32'],
    6: ['failed', 'int32'],
    11: ['terminating', 'int32', 'keep'],
    7: ['completedIndexes', 'string'],
    10: ['failedIndexes', 'string', 'keep'],
    9: ['ready', 'int32', 'keep'],
  },
  CronJob: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'CronJobSpec'], 3: ['status', 'CronJobStatus'] },
  CronJobSpec: {
    1: ['schedule', 'string', 'keep'],
    8: ['timeZone', 'string', 'keep'],
    2: ['startingDeadlineSeconds', 'int64', 'keep'],
    3: ['concurrencyPolicy', 'string'],
    4: ['suspend', 'bool', 'keep'],
    5: ['jobTemplate', 'JobTemplateSpec'],
    6: ['successfulJobsHistoryLimit', 'int32', 'keep'],
    7: ['failedJobsHistoryLimit', 'int32', 'keep'],
  },
  CronJobStatus: { 1: ['active', 'ObjectReference', 'repeated'], 4: ['lastScheduleTime', 'time'], 5: ['lastSuccessfulTime', 'time'] },
  JobTemplateSpec: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'JobSpec'] },
};

/**
 * The kinds whose protobuf bodies the simulator decodes: `apiVersion/kind` → message name.
 *
 * @example
 * PROTOBUF_KINDS['apps/v1/Deployment']; // 'Deployment'
 */
export const PROTOBUF_KINDS: Readonly<Record<string, string>> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Pod': 'Pod',
  'v1/Service': 'Service',
  'v1/ResourceQuota': 'ResourceQuota',
  'apps/v1/Deployment': 'Deployment',
  'batch/v1/Job': 'Job',
  'batch/v1/CronJob': 'CronJob',
  'v1/DeleteOptions': 'DeleteOptions',
  'meta.k8s.io/v1/DeleteOptions': 'DeleteOptions',
};
