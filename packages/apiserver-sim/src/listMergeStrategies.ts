/**
 * How the built-in kinds' lists merge, from the Kubernetes types' markers: for server-side apply
 * and managedFields, a list is a map keyed by one or more of its items' fields
 * (`x-kubernetes-list-map-keys`), a set of scalars, or atomic (owned and replaced whole); for
 * strategic merge patch, a list merges by one field (`patchMergeKey`), merges as a set of
 * primitives, or is replaced. The two tables sit side by side because they differ in places a
 * reviewer should see at once: container ports are keyed by `containerPort` and `protocol` for
 * apply but merge by `containerPort` alone in a strategic merge patch; `status.hostIPs` is atomic
 * for apply but merges by `ip` in a patch.
 *
 * Lists are found by scope: the object's kind then the field names leading to the list, list
 * items adding nothing (`Pod.spec.containers.ports`, `Deployment.spec.template.spec.containers.ports`).
 * A table entry matches the end of a scope at a field boundary, the longest entry winning, so
 * `containers.ports` covers every pod template and `Service.spec.ports` only Services. Objects of
 * kinds the tables do not describe (custom resources) have no scope: their lists are keyed by a
 * guess on the item (`guessItemKey`), as are lists of built-in kinds the tables leave out.
 */

/** How server-side apply treats a list: keyed items, a set of scalars, or one atomic value. */
export type ListType =
  | {
      /** A map of items (`+listType=map`). */
      type: 'map';
      /** The item fields that together identify an item (`+listMapKey`), e.g. `containerPort`, `protocol`. */
      keys: readonly string[];
    }
  | {
      /** A set of scalars (`+listType=set`): items are `v:` keys. */
      type: 'set';
    }
  | {
      /** Owned and replaced whole (`+listType=atomic`). */
      type: 'atomic';
    };

const map = (...keys: string[]): ListType => ({ type: 'map', keys });
const SET: ListType = { type: 'set' };
const ATOMIC: ListType = { type: 'atomic' };

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];
const perContainerList = <T>(field: string, v: T): Record<string, T> =>
  Object.fromEntries(CONTAINER_LISTS.map((c) => [`${c}.${field}`, v]));

/**
 * The list types of the built-in kinds' lists (`+listType`, `+listMapKey` in k8s.io/api), by scope
 * suffix. Lists left out fall back to `guessItemKey`.
 */
export const LIST_TYPES: Readonly<Record<string, ListType>> = {
  // ObjectMeta
  'metadata.ownerReferences': map('uid'),
  'metadata.finalizers': SET,
  // PodSpec (in a Pod and in every pod template)
  'spec.containers': map('name'),
  'spec.initContainers': map('name'),
  'spec.ephemeralContainers': map('name'),
  'spec.volumes': map('name'),
  'spec.imagePullSecrets': map('name'),
  'spec.hostAliases': map('ip'),
  'spec.topologySpreadConstraints': map('topologyKey', 'whenUnsatisfiable'),
  'spec.schedulingGates': map('name'),
  'spec.resourceClaims': map('name'),
  'spec.tolerations': ATOMIC,
  'spec.readinessGates': ATOMIC,
  // Container
  ...perContainerList('ports', map('containerPort', 'protocol')),
  ...perContainerList('env', map('name')),
  ...perContainerList('volumeMounts', map('mountPath')),
  ...perContainerList('volumeDevices', map('devicePath')),
  ...perContainerList('command', ATOMIC),
  ...perContainerList('args', ATOMIC),
  ...perContainerList('envFrom', ATOMIC),
  ...perContainerList('resizePolicy', ATOMIC),
  // PodStatus, and the conditions of every kind served
  'status.conditions': map('type'),
  'Pod.status.podIPs': map('ip'),
  'Pod.status.hostIPs': ATOMIC,
  'Pod.status.containerStatuses': ATOMIC,
  'Pod.status.initContainerStatuses': ATOMIC,
  'Pod.status.ephemeralContainerStatuses': ATOMIC,
  // Service
  'Service.spec.ports': map('port', 'protocol'),
  'Service.spec.clusterIPs': ATOMIC,
  'Service.spec.externalIPs': ATOMIC,
  'Service.spec.ipFamilies': ATOMIC,
  'Service.spec.loadBalancerSourceRanges': ATOMIC,
  // Node, Namespace, StatefulSet
  'Node.spec.podCIDRs': SET,
  'Node.spec.taints': ATOMIC,
  'Node.status.addresses': map('type'),
  'Node.status.images': ATOMIC,
  'Node.status.volumesInUse': ATOMIC,
  'Node.status.volumesAttached': ATOMIC,
  'Namespace.spec.finalizers': ATOMIC,
  'StatefulSet.spec.volumeClaimTemplates': ATOMIC,
};

/**
 * The strategic merge patch key of the built-in kinds' lists (`patchMergeKey` with
 * `patchStrategy=merge` in k8s.io/api), by scope suffix: `''` for a list of primitives merged as a
 * set. A list left out is replaced by the patch's (tolerations, for one, have no merge key).
 */
export const PATCH_MERGE_KEYS: Readonly<Record<string, string>> = {
  'metadata.ownerReferences': 'uid',
  'metadata.finalizers': '',
  'spec.containers': 'name',
  'spec.initContainers': 'name',
  'spec.ephemeralContainers': 'name',
  'spec.volumes': 'name',
  'spec.imagePullSecrets': 'name',
  'spec.hostAliases': 'ip',
  'spec.topologySpreadConstraints': 'topologyKey',
  'spec.schedulingGates': 'name',
  'spec.resourceClaims': 'name',
  ...perContainerList('ports', 'containerPort'),
  ...perContainerList('env', 'name'),
  ...perContainerList('volumeMounts', 'mountPath'),
  ...perContainerList('volumeDevices', 'devicePath'),
  'status.conditions': 'type',
  'status.podIPs': 'ip',
  'status.hostIPs': 'ip',
  'Service.spec.ports': 'port',
  'Node.spec.podCIDRs': '',
  'Node.status.addresses': 'type',
};

/** The kinds the tables describe (of the core and `apps` groups). */
const DESCRIBED_KINDS = new Set([
  'Pod',
  'Service',
  'ConfigMap',
  'Secret',
  'Node',
  'Namespace',
  'Event',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
]);

/**
 * The scope of an object's root: its kind when the tables describe it (a built-in kind of `v1` or
 * `apps/v1`), undefined otherwise (a custom resource: its lists are keyed by `guessItemKey`).
 *
 * @example
 * rootScope(pod); // 'Pod'
 * rootScope(widget); // undefined
 */
export function rootScope(obj: unknown): string | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion !== 'v1' && apiVersion !== 'apps/v1') return undefined;
  return typeof kind === 'string' && DESCRIBED_KINDS.has(kind) ? kind : undefined;
}

/**
 * The scope of field `field` of a value in `scope` (undefined stays undefined). List items share
 * their list's scope.
 *
 * @example
 * childScope(childScope('Pod', 'spec'), 'containers'); // 'Pod.spec.containers'
 */
export function childScope(scope: string | undefined, field: string): string | undefined {
  return scope === undefined ? undefined : `${scope}.${field}`;
}

function lookup<T>(table: Readonly<Record<string, T>>, memo: Map<string, T | null>, scope: string): T | undefined {
  let found = memo.get(scope);
  if (found === undefined) {
    found = null;
    // the longest suffix at a field boundary: the whole scope, then after each dot in turn
    for (let i = 0; ;) {
      const suffix = i === 0 ? scope : scope.slice(i);
      if (Object.hasOwn(table, suffix)) {
        found = table[suffix];
        break;
      }
      const dot = scope.indexOf('.', i);
      if (dot < 0) break;
      i = dot + 1;
    }
    if (memo.size >= 4096) memo.clear(); // scopes come from objects' shapes: bound the memo all the same
    memo.set(scope, found);
  }
  return found ?? undefined;
}

const listTypeMemo = new Map<string, ListType | null>();
const patchKeyMemo = new Map<string, string | null>();

/**
 * The server-side apply type of the list at `scope`, undefined when the tables do not describe it.
 *
 * @example
 * listTypeAt('Deployment.spec.template.spec.containers.ports'); // { type: 'map', keys: ['containerPort', 'protocol'] }
 * listTypeAt('Pod.spec.tolerations'); // { type: 'atomic' }
 */
export function listTypeAt(scope: string | undefined): ListType | undefined {
  return scope === undefined ? undefined : lookup(LIST_TYPES, listTypeMemo, scope);
}

/**
 * The strategic merge patch key of the list at `scope` (`''`: a set of primitives), undefined
 * when the list is replaced by the patch's.
 *
 * @example
 * patchMergeKeyAt('Service.spec.ports'); // 'port'
 * patchMergeKeyAt('Pod.spec.tolerations'); // undefined
 */
export function patchMergeKeyAt(scope: string): string | undefined {
  return lookup(PATCH_MERGE_KEYS, patchKeyMemo, scope);
}

/**
 * The fields by which a merge matches the items of the list at `scope` (`[]`: a set of
 * primitives), undefined when the list is replaced whole. A strategic merge patch (`'patch'`)
 * matches by the `patchMergeKey`; a server-side apply (`'apply'`) by the list-map keys, falling back
 * to the `patchMergeKey` for a list the list types leave out.
 *
 * @example
 * mergeKeysAt('Pod.spec.containers.ports', 'patch'); // ['containerPort']
 * mergeKeysAt('Pod.spec.containers.ports', 'apply'); // ['containerPort', 'protocol']
 * mergeKeysAt('Pod.spec.tolerations', 'apply'); // undefined
 */
export function mergeKeysAt(scope: string, merge: 'apply' | 'patch'): readonly string[] | undefined {
  const lt = merge === 'apply' ? listTypeAt(scope) : undefined;
  if (lt !== undefined) return lt.type === 'map' ? lt.keys : lt.type === 'set' ? [] : undefined;
  const key = patchMergeKeyAt(scope);
  return key === undefined ? undefined : key === '' ? [] : [key];
}

/**
 * The key of a list item of a list the tables do not describe: the first of the usual key fields
 * it has (`{ name: 'web' }`), undefined when it has none.
 */
export function guessItemKey(item: Record<string, unknown>): Record<string, unknown> | undefined {
  const keyField = ['name', 'containerPort', 'mountPath', 'uid', 'type'].find((k) => k in item);
  return keyField === undefined ? undefined : { [keyField]: item[keyField] };
}

/**
 * The key fields and values of an object item of the list at `scope`, in the order of the list's
 * keys (`{ containerPort: 8080, protocol: 'TCP' }`): the list-map keys the item has, or the guess
 * of `guessItemKey` for a list the tables leave out; undefined for an item of a set or atomic list,
 * or one without any key field.
 *
 * @example
 * itemKeyFields({ containerPort: 80, protocol: 'TCP', name: 'http' }, 'Pod.spec.containers.ports'); // { containerPort: 80, protocol: 'TCP' }
 */
export function itemKeyFields(item: Record<string, unknown>, scope: string | undefined): Record<string, unknown> | undefined {
  const lt = listTypeAt(scope);
  if (lt === undefined) return guessItemKey(item);
  if (lt.type !== 'map') return undefined;
  let out: Record<string, unknown> | undefined;
  for (const k of lt.keys) if (item[k] !== undefined) (out ??= {})[k] = item[k];
  return out;
}
