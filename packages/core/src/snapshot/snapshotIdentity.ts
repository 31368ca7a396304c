/**
 * What a snapshot is of: the server, the resource and scope, and the transform that shaped its
 * objects. Two informers share a snapshot only when all of it is equal; the store key is derived
 * from it, and a loaded snapshot whose identity differs is refused as `Foreign`.
 */
import { InvalidOptionsError } from '../errors.ts';
import { FNV_BASIS, fnv1aFrom } from '../store/keyHash.ts';
import type { InformerScope, ResourceDescriptor } from '../types.ts';

/**
 * The identity of an informer's snapshot. Every field is a string (or boolean) so that it can be
 * written in the snapshot's header and compared when it is read back.
 */
export interface SnapshotIdentity {
  /**
   * The server and who asks: objects of two clusters, or seen by two users with other rights, must
   * never mix. client-node's factory sets the cluster URL and the KubeConfig's user.
   */
  readonly server: string;
  /** API group (`""` for the core group). */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Plural resource name. */
  readonly resource: string;
  /** True for a metadata-only informer (`PartialObjectMetadata`). */
  readonly metadataOnly: boolean;
  /** The namespace listed, `""` for all. */
  readonly namespace: string;
  /** The label selector, `""` for none. */
  readonly labelSelector: string;
  /** The field selector, `""` for none. */
  readonly fieldSelector: string;
  /** Names the transform the stored objects went through (`transformId`, or a hash of its source), `""` for none. */
  readonly transform: string;
}

/** What `snapshotIdentity` is made of. */
export interface SnapshotIdentityParts {
  /** The server (and user): see `SnapshotIdentity.server`. Required, non-empty. */
  server: string;
  /** The informer's resource. */
  resource: ResourceDescriptor;
  /** Its scope. Default: all namespaces, no selectors. */
  scope?: InformerScope;
  /** The informer's transform, whose source text names it unless `transformId` does. */
  transform?: (obj: never) => unknown;
  /** Names the transform: set it when the transform's behaviour depends on more than its source (configuration it closes over). */
  transformId?: string;
}

/**
 * The identity of the snapshot of an informer of `resource` in `scope` on `server`. The factory
 * makes it for each of its informers; call it for a `createSharedInformer` of your own.
 *
 * @example
 * const identity = snapshotIdentity({ server: 'https://prod.example:6443 (user alice)', resource: configMaps, scope: { namespace: 'web' } });
 * createSharedInformer(lw, { snapshot: { store, identity } });
 *
 * Caveat: without `transformId`, a transform is named by a hash of its source text: two transforms
 * with the same source that close over different settings look alike. Give each its own id.
 */
export function snapshotIdentity(parts: SnapshotIdentityParts): SnapshotIdentity {
  if (typeof parts.server !== 'string' || parts.server === '')
    throw new InvalidOptionsError('a snapshot needs server: the server (and user) it was read from, so that two clusters never mix');
  if (parts.transformId !== undefined && typeof parts.transformId !== 'string')
    throw new InvalidOptionsError('transformId must be a string');
  const { resource, scope = {} } = parts;
  return {
    server: parts.server,
    group: resource.group,
    version: resource.version,
    resource: resource.resource,
    metadataOnly: resource.metadataOnly === true,
    namespace: resource.namespaced ? (scope.namespace ?? '') : '',
    labelSelector: scope.labelSelector ?? '',
    fieldSelector: scope.fieldSelector ?? '',
    transform: storedForm(
      resource,
      parts.transformId ?? (parts.transform ? `source:${hex32(fnv1aFrom(FNV_BASIS, String(parts.transform)))}` : ''),
    ),
  };
}

/** What the stored objects went through: Table rows, a projection (by its paths' key), then the transform's name. */
function storedForm(resource: SnapshotIdentityParts['resource'], transform: string): string {
  const steps = [resource.table ? 'table' : '', resource.projection ? `projection:${resource.projection.key}` : '', transform];
  return steps.filter((step) => step !== '').join(' then ');
}

/** The fields of an identity in the order they are written and compared. */
const FIELDS: readonly (keyof SnapshotIdentity)[] = [
  'server',
  'group',
  'version',
  'resource',
  'metadataOnly',
  'namespace',
  'labelSelector',
  'fieldSelector',
  'transform',
];

/** `identity` as a plain object with its fields in a fixed order (what a header holds). */
export function canonicalIdentity(identity: SnapshotIdentity): SnapshotIdentity {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) out[field] = identity[field];
  return out as unknown as SnapshotIdentity;
}

/** The first field in which `found` differs from `expected`, or `undefined` when they are equal. */
export function identityDifference(expected: SnapshotIdentity, found: unknown): string | undefined {
  if (found === null || typeof found !== 'object') return 'identity';
  const read = found as Record<string, unknown>;
  return FIELDS.find((field) => read[field] !== expected[field]);
}

/**
 * The store key of a snapshot: the resource's name (readable in a directory listing) and 64 bits
 * of hash of the whole identity, in `[a-z0-9.-]` only, so a file store can use it as a file name.
 *
 * @example
 * snapshotKey(identity); // 'configmaps-1f3a09c2b7d4e851', 'deployments.apps-…'
 */
export function snapshotKey(identity: SnapshotIdentity): string {
  const text = JSON.stringify(canonicalIdentity(identity));
  const name = (identity.group ? `${identity.resource}.${identity.group}` : identity.resource).toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  // Two 32-bit lanes from different bases: a collision in one directory would make two informers
  // overwrite each other's snapshot (each then refused as `Foreign`, never mixed).
  return `${name.slice(0, 100)}-${hex32(fnv1aFrom(FNV_BASIS, text))}${hex32(fnv1aFrom(0x01234567, text))}`;
}

/** True for the core group's Secrets, which are persisted only when asked (`persistSecrets`). */
export function isSecrets(identity: Pick<SnapshotIdentity, 'group' | 'resource'>): boolean {
  return identity.group === '' && identity.resource === 'secrets';
}

/** @internal A 32-bit hash as 8 hex digits. */
export const hex32 = (n: number): string => n.toString(16).padStart(8, '0');
