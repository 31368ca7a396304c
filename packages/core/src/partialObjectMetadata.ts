/**
 * Metadata-only informers: `PartialObjectMetadata` (client-go's `metadatainformer`), what the API
 * server sends for an `Accept: application/json;as=PartialObjectMetadata…` request — each object's
 * `metadata` only, a fraction of its memory. `metadataOnly(pods)` names a resource that way.
 */
import { requireFullResource } from './descriptorForm.ts';
import { RxInformerError } from './errors.ts';
import { META_V1 } from './expectedType.ts';
import type { ResourceDescriptor } from './types.ts';
import type { KubeObject, ObjectMeta } from './types.ts';

/** An object's metadata alone, as the API server sends it to a metadata-only list or watch. */
export interface PartialObjectMetadata extends KubeObject {
  /** `meta.k8s.io/v1`. */
  apiVersion: 'meta.k8s.io/v1';
  /** `PartialObjectMetadata`. */
  kind: 'PartialObjectMetadata';
  /** Name, namespace, UID, resource version, labels, annotations, owners, finalizers, managedFields… */
  metadata: ObjectMeta;
}

/** The Accept headers of metadata-only requests: a list asks for the list type, a watch (and a get) for the object type. */
export const PARTIAL_OBJECT_METADATA_ACCEPT: {
  /** For lists: `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`. */
  readonly list: string;
  /** For watches and gets: `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`. */
  readonly watch: string;
} = Object.freeze({
  list: `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`,
  watch: `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
});

/** A resource descriptor for its metadata only. */
export type MetadataOnlyDescriptor<D extends ResourceDescriptor> = Omit<D, '__type' | 'metadataOnly'> & {
  /** Always true. */
  readonly metadataOnly: true;
  /** Carries the object type only; never set. */
  readonly __type?: PartialObjectMetadata;
};

/**
 * The metadata-only form of a resource descriptor: an informer of it lists and watches
 * `PartialObjectMetadata` (metadata only, typed as such), a factory keeps it apart from the full
 * informer of the same resource, and its reflector expects `meta.k8s.io/v1 PartialObjectMetadata`
 * (of the resource's own type, for the full objects of a server that ignores `as=`: see
 * `expectedTypeOf`).
 *
 * @example
 * const podMeta = factory.informerFor(metadataOnly(pods)); // SharedInformer<PartialObjectMetadata>
 * podMeta.getStore().byIndex(NAMESPACE_INDEX, 'default').map((p) => p.metadata.labels);
 *
 * Caveat: the objects hold no spec nor status; a handler needing them reads the object from the
 * server (or from a full informer of the few resources it needs whole). A `tableRows()` or
 * `projected()` descriptor throws `InvalidOptionsError`.
 */
export function metadataOnly<D extends ResourceDescriptor>(resource: D): MetadataOnlyDescriptor<D> {
  requireFullResource(resource, 'the metadata');
  return Object.freeze({ ...resource, metadataOnly: true }) as unknown as MetadataOnlyDescriptor<D>;
}

/**
 * A metadata-only request was answered with full objects of the resource's type (the server or a
 * proxy ignored `as=`): they were reduced to their metadata. A standing condition, not a failure:
 * the reflector's status carries it as `warning` until a list answers with metadata only.
 */
export class NotPartialMetadataError extends RxInformerError {
  /** Always `NotPartialMetadataError`: set as a string, so it survives minification. */
  override readonly name: string = 'NotPartialMetadataError';
  /** The first object reduced (its type and name tell which). */
  readonly object: unknown;

  constructor(object: unknown) {
    const o = object as KubeObject | null | undefined;
    const what = `${typeof o?.kind === 'string' ? o.kind : 'objects without a kind'}${o?.metadata?.name ? ` (${o.metadata.name})` : ''}`;
    super(
      'NotPartialObjectMetadata',
      `a metadata-only request was answered with full objects, ${what}: the server (or a proxy) ignores Accept's as=PartialObjectMetadata; each is reduced to its metadata`,
    );
    this.object = object;
  }
}

/**
 * `obj` as a `PartialObjectMetadata`: itself when it is one, else a new one holding its metadata
 * (frozen when `obj` was). `full` is true when `obj` carried more than metadata or declared another
 * kind: a full object where metadata was asked for.
 */
export function asPartialObjectMetadata<T>(obj: T): { object: T; full: boolean } {
  if (obj === null || typeof obj !== 'object') return { object: obj, full: false };
  const o = obj as Record<string, unknown> & { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
  let extra = false;
  for (const key in o) if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') extra = true;
  const full = extra || (o.kind !== undefined && o.kind !== 'PartialObjectMetadata');
  if (!full && o.kind === 'PartialObjectMetadata' && o.apiVersion === META_V1) return { object: obj, full };
  const reduced = { apiVersion: META_V1, kind: 'PartialObjectMetadata', metadata: o.metadata };
  return { object: (Object.isFrozen(obj) ? Object.freeze(reduced) : reduced) as T, full };
}
