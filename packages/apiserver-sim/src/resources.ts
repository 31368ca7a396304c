/**
 * The resource registry: which group/version/resources the simulator serves, with the discovery
 * facts of each (kind, scope, verbs, short names). Built-in kinds are registered at start; custom
 * resources appear when a CustomResourceDefinition (apiextensions.k8s.io/v1) is stored.
 */
import type { KubeObject } from '@rxinformer/core';

/** Everything the simulator knows about one served resource. */
export interface ResourceInfo {
  /** API group, `''` for the core group. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural name, e.g. `pods`. */
  resource: string;
  /** Singular name, e.g. `pod`. */
  singular: string;
  /** E.g. `Pod`. */
  kind: string;
  /** E.g. `PodList`. */
  listKind: string;
  /** True for namespaced resources. */
  namespaced: boolean;
  /** kubectl short names, e.g. `po`. */
  shortNames: string[];
  /** kubectl categories, e.g. `all`. */
  categories: string[];
  /** Verbs served, as discovery lists them. */
  verbs: string[];
  /** Subresources served (`status`). */
  subresources: string[];
  /** Whether `metadata.generation` tracks changes of `spec`. */
  hasSpec: boolean;
  /** True for resources registered from a CustomResourceDefinition. */
  custom: boolean;
}

/** The `group/version/resource` key of a resource: `/v1/pods`, `apps/v1/deployments`. */
export function gvrKey(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

/** `v1` or `apps/v1`. */
export function groupVersion(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<Pick<ResourceInfo, 'shortNames' | 'categories' | 'subresources' | 'hasSpec' | 'version'>> = {},
): ResourceInfo {
  return {
    group,
    version: extra.version ?? 'v1',
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: extra.shortNames ?? [],
    categories: extra.categories ?? [],
    verbs: ALL_VERBS,
    subresources: extra.subresources ?? [],
    hasSpec: extra.hasSpec ?? false,
    custom: false,
  };
}

/** The resources every simulator serves from the start. */
export const BUILTIN_RESOURCES: readonly ResourceInfo[] = [
  // namespaces are deleted one by one (no deletecollection), as on a real server
  {
    ...builtin('', 'namespaces', 'Namespace', false, { shortNames: ['ns'], subresources: ['status'] }),
    verbs: ALL_VERBS.filter((v) => v !== 'deletecollection'),
  },
  builtin('', 'pods', 'Pod', true, { shortNames: ['po'], categories: ['all'], subresources: ['status'] }),
  builtin('', 'services', 'Service', true, { shortNames: ['svc'], categories: ['all'], subresources: ['status'] }),
  builtin('', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
  builtin('', 'secrets', 'Secret', true),
  builtin('', 'nodes', 'Node', false, { shortNames: ['no'], subresources: ['status'] }),
  builtin('', 'events', 'Event', true, { shortNames: ['ev'] }),
  builtin('', 'endpoints', 'Endpoints', true, { shortNames: ['ep'] }),
  builtin('', 'persistentvolumes', 'PersistentVolume', false, { shortNames: ['pv'], subresources: ['status'] }),
  builtin('', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, { shortNames: ['pvc'], subresources: ['status'] }),
  builtin('', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'], subresources: ['token'] }),
  builtin('', 'resourcequotas', 'ResourceQuota', true, { shortNames: ['quota'], subresources: ['status'] }),
  builtin('apps', 'deployments', 'Deployment', true, {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status'],
    hasSpec: true,
  }),
  builtin('apps', 'replicasets', 'ReplicaSet', true, { shortNames: ['rs'], categories: ['all'], subresources: ['status'], hasSpec: true }),
  builtin('apps', 'statefulsets', 'StatefulSet', true, {
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status'],
    hasSpec: true,
  }),
  builtin('apps', 'daemonsets', 'DaemonSet', true, { shortNames: ['ds'], categories: ['all'], subresources: ['status'], hasSpec: true }),
  builtin('batch', 'jobs', 'Job', true, { categories: ['all'], subresources: ['status'], hasSpec: true }),
  builtin('batch', 'cronjobs', 'CronJob', true, { shortNames: ['cj'], categories: ['all'], subresources: ['status'], hasSpec: true }),
  builtin('networking.k8s.io', 'ingresses', 'Ingress', true, { shortNames: ['ing'], subresources: ['status'], hasSpec: true }),
  builtin('coordination.k8s.io', 'leases', 'Lease', true),
  // Kept apart from core/v1 events (kube-apiserver stores both as one, converting on the way)
  builtin('events.k8s.io', 'events', 'Event', true, { shortNames: ['ev'] }),
  builtin('rbac.authorization.k8s.io', 'roles', 'Role', true),
  builtin('rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', true),
  builtin('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', false),
  builtin('rbac.authorization.k8s.io', 'clusterrolebindings', 'ClusterRoleBinding', false),
  // reviews: answered, never stored (`reviews.ts`)
  { ...builtin('authentication.k8s.io', 'tokenreviews', 'TokenReview', false), verbs: ['create'] },
  { ...builtin('authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview', false), verbs: ['create'] },
  { ...builtin('authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false), verbs: ['create'] },
  builtin('apiextensions.k8s.io', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
    shortNames: ['crd', 'crds'],
    subresources: ['status'],
    hasSpec: true,
  }),
];

/** The CRD resource's key. */
export const CRD_KEY = 'apiextensions.k8s.io/v1/customresourcedefinitions';

interface CrdShape {
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions?: { name?: string; served?: boolean; subresources?: { status?: unknown } }[];
  };
}

/** The resources a CustomResourceDefinition declares (one per served version). */
export function resourcesOfCrd(crd: KubeObject): ResourceInfo[] {
  const spec = (crd as CrdShape).spec ?? {};
  const names = spec.names ?? {};
  if (!spec.group || !names.plural || !names.kind) return [];
  return (spec.versions ?? [])
    .filter((v) => v.name && v.served !== false)
    .map((v) => ({
      group: spec.group as string,
      version: v.name as string,
      resource: names.plural as string,
      singular: names.singular ?? (names.kind as string).toLowerCase(),
      kind: names.kind as string,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced: spec.scope !== 'Cluster',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      verbs: ALL_VERBS,
      subresources: v.subresources?.status !== undefined ? ['status'] : [],
      hasSpec: true,
      custom: true,
    }));
}

/** A mutable registry of served resources. */
export class ResourceRegistry {
  readonly #byKey = new Map<string, ResourceInfo>();
  #version = 0;

  /** Incremented on every add or remove (lets callers cache lookups). */
  get version(): number {
    return this.#version;
  }

  constructor(initial: readonly ResourceInfo[] = BUILTIN_RESOURCES) {
    for (const r of initial) this.add(r);
  }

  /** Adds (or replaces) a resource. */
  add(r: ResourceInfo): void {
    this.#byKey.set(gvrKey(r), r);
    this.#version += 1;
  }

  /** Removes a resource. */
  remove(key: string): void {
    if (this.#byKey.delete(key)) this.#version += 1;
  }

  /** The resource at `group/version/resource`, if served. */
  get(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.#byKey.get(`${group}/${version}/${resource}`);
  }

  /** The resource with this key. */
  byKey(key: string): ResourceInfo | undefined {
    return this.#byKey.get(key);
  }

  /** Finds a resource by kind and apiVersion (`v1`, `apps/v1`). */
  byKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    for (const r of this.#byKey.values()) if (r.kind === kind && groupVersion(r) === apiVersion) return r;
    return undefined;
  }

  /** Every served resource. */
  all(): ResourceInfo[] {
    return [...this.#byKey.values()];
  }

  /** The groups served, with their versions, core group (`''`) included. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of this.#byKey.values()) {
      const versions = out.get(r.group) ?? [];
      if (!versions.includes(r.version)) versions.push(r.version);
      out.set(r.group, versions);
    }
    return out;
  }
}
