/**
 * The type (apiVersion and kind, Kubernetes' TypeMeta) a reflector expects of the objects it
 * stores, as client-go's reflector checks its `expectedGVK`: an object that declares another type
 * is skipped and reported, so a ConfigMap on a pods watch never enters a pods cache. An object that
 * declares no type (list items often don't) is accepted. `admission.ts` applies it.
 */
import { InvalidOptionsError, RxInformerError, describeValue } from './errors.ts';
import { TABLE_ROW_TYPE } from './tableRow.ts';
import type { KubeObject, ResourceDescriptor } from './types.ts';

/** An apiVersion and a kind; an unset field is not checked. */
export interface TypeMeta {
  /** E.g. `v1`, `apps/v1`. Default: not checked. */
  apiVersion?: string;
  /** E.g. `Pod`. Default: not checked. */
  kind?: string;
}

/** The apiVersion and kind objects must have when they declare one; an unset field is not checked. */
export interface ExpectedType extends TypeMeta {
  /**
   * Of a metadata-only reflector (`meta.k8s.io/v1 PartialObjectMetadata`): the type of the
   * resource's full objects, e.g. `{ apiVersion: 'v1', kind: 'Pod' }`. A server that ignores
   * `as=PartialObjectMetadata` sends full objects; one declaring this type (or none) is reduced to
   * its metadata, one declaring another is skipped (`UnexpectedTypeError`) before anything of it
   * is kept. Default: not known, so a full object of any type is reduced (`expectedTypeOf` of a
   * `metadataOnly()` descriptor sets it; the informer factory does).
   */
  metadataOf?: TypeMeta;
}

/** `meta.k8s.io/v1`, the apiVersion of `PartialObjectMetadata`. */
export const META_V1 = 'meta.k8s.io/v1';

/**
 * The type every object of a metadata-only informer has, of no resource in particular: a full
 * object of any type is reduced to its metadata. Prefer `expectedTypeOf(metadataOnly(pods))`, which
 * skips full objects of another type than the resource's.
 */
export const PARTIAL_OBJECT_METADATA_TYPE: ExpectedType = Object.freeze({ apiVersion: META_V1, kind: 'PartialObjectMetadata' });

/** @internal The group version of `resource`, as its objects' `apiVersion`: `v1`, `apps/v1`. */
export function groupVersionOf(resource: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/**
 * The type every object of `resource` declares when it declares one: its apiVersion, and its kind
 * when the descriptor knows it; for a `metadataOnly()` descriptor, `PartialObjectMetadata` with
 * that type as `metadataOf`; for a `tableRows()` descriptor, `TABLE_ROW_TYPE` (the rows' stored
 * form). The informer factory sets it as each reflector's `expectedType`.
 *
 * @example
 * expectedTypeOf(pods);               // { apiVersion: 'v1', kind: 'Pod' }
 * expectedTypeOf(metadataOnly(pods)); // { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadataOf: { apiVersion: 'v1', kind: 'Pod' } }
 */
export function expectedTypeOf(resource: ResourceDescriptor): ExpectedType {
  const apiVersion = groupVersionOf(resource);
  const own: TypeMeta = typeof resource.kind === 'string' && resource.kind !== '' ? { apiVersion, kind: resource.kind } : { apiVersion };
  if (resource.table === true) return TABLE_ROW_TYPE;
  return Object.freeze(resource.metadataOnly === true ? { ...PARTIAL_OBJECT_METADATA_TYPE, metadataOf: Object.freeze(own) } : own);
}

/** Objects that declared another apiVersion or kind than the resource watched were skipped. */
export class UnexpectedTypeError extends RxInformerError {
  /** Always `UnexpectedTypeError`: set as a string, so it survives minification. */
  override readonly name: string = 'UnexpectedTypeError';
  /** The type the reflector expects. */
  readonly expected: ExpectedType;
  /** The first object skipped. */
  readonly object: unknown;
  /** How many objects were skipped (1 for a watch event; all of a list's). */
  readonly count: number;

  constructor(expected: ExpectedType, object: unknown, count = 1) {
    const what = `${describeType(object as KubeObject, '-')} ${describeName(object as KubeObject)}`;
    const want = `${describeType(expected)}${expected.metadataOf ? ` of ${describeType(expected.metadataOf)}` : ''}`;
    super(
      'UnexpectedType',
      count === 1
        ? `object of type ${what} skipped: expected ${want}`
        : `${count} objects of another type skipped (the first: ${what}): expected ${want}`,
    );
    this.expected = expected;
    this.object = object;
    this.count = count;
  }
}

/** Checks the `expectedType` option: undefined, or an object of non-empty strings (and its `metadataOf`, alike). */
export function validateExpectedType(value: unknown): ExpectedType | undefined {
  const own = validateTypeMeta('expectedType', value);
  if (own === undefined) return undefined;
  const metadataOf = validateTypeMeta('expectedType.metadataOf', (value as ExpectedType).metadataOf);
  return Object.freeze(metadataOf === undefined ? own : { ...own, metadataOf });
}

/** `value` as a frozen `TypeMeta` of non-empty strings, undefined when it checks nothing; throws `InvalidOptionsError`. */
function validateTypeMeta(name: string, value: unknown): TypeMeta | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') throw new InvalidOptionsError(`${name} must be an object, got ${describeValue(value)}`);
  const { apiVersion, kind } = value as Record<string, unknown>;
  for (const [field, v] of [
    ['apiVersion', apiVersion],
    ['kind', kind],
  ] as const) {
    if (v !== undefined && (typeof v !== 'string' || v === ''))
      throw new InvalidOptionsError(`${name}.${field} must be a non-empty string, got ${describeValue(v)}`);
  }
  if (apiVersion === undefined && kind === undefined) return undefined;
  return Object.freeze({ ...(apiVersion !== undefined && { apiVersion }), ...(kind !== undefined && { kind }) }) as TypeMeta;
}

/** False when `obj` declares an apiVersion or kind other than the expected one; true otherwise. */
export function hasExpectedType(expected: TypeMeta | undefined, obj: unknown): boolean {
  if (expected === undefined || obj === null || typeof obj !== 'object') return true;
  const { apiVersion, kind } = obj as KubeObject;
  return (
    (expected.kind === undefined || !declared(kind) || kind === expected.kind) &&
    (expected.apiVersion === undefined || !declared(apiVersion) || apiVersion === expected.apiVersion)
  );
}

/** `previous` with `count` more objects skipped, or a new error for `object`. */
export function addRejected(expected: ExpectedType, object: unknown, count = 1, previous?: UnexpectedTypeError): UnexpectedTypeError {
  return previous
    ? new UnexpectedTypeError(expected, previous.object, previous.count + count)
    : new UnexpectedTypeError(expected, object, count);
}

/** `undefined`, `null` and `""` declare nothing (Go's zero value). */
function declared(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** `apiVersion kind`, `unset` standing for a field that is not there. */
function describeType(t: { apiVersion?: unknown; kind?: unknown } | null | undefined, unset = '(any)'): string {
  const part = (value: unknown) => (typeof value === 'string' && value !== '' ? value : declared(value) ? describeValue(value) : unset);
  return `${part(t?.apiVersion)} ${part(t?.kind)}`;
}

function describeName(o: KubeObject | null | undefined): string {
  const m = o?.metadata;
  return m?.namespace ? `${m.namespace}/${m.name}` : String(m?.name);
}
