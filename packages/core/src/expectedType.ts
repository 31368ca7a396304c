/**
 * The type (apiVersion and kind, Kubernetes' TypeMeta) a reflector expects of the objects it
 * stores, as client-go's reflector checks its `expectedGVK`: an object that declares another type
 * is skipped and reported, so a ConfigMap on a pods watch never enters a pods cache. An object that
 * declares no type (list items often don't) is accepted.
 */
import { InvalidOptionsError, RxInformerError, describeValue } from './errors.ts';
import type { KubeObject } from './types.ts';

/** The apiVersion and kind objects must have when they declare one; an unset field is not checked. */
export interface ExpectedType {
  /** E.g. `v1`, `apps/v1`. Default: not checked. */
  apiVersion?: string;
  /** E.g. `Pod`. Default: not checked. */
  kind?: string;
}

/** Objects that declared another apiVersion or kind than the resource watched were skipped. */
export class UnexpectedTypeError extends RxInformerError {
  /** The type the reflector expects. */
  readonly expected: ExpectedType;
  /** The first object skipped. */
  readonly object: unknown;
  /** How many objects were skipped (1 for a watch event; all of a list's). */
  readonly count: number;

  constructor(expected: ExpectedType, object: unknown, count = 1) {
    const what = `${describeType(object as KubeObject, '-')} ${describeName(object as KubeObject)}`;
    super(
      'UnexpectedType',
      count === 1
        ? `object of type ${what} skipped: expected ${describeType(expected)}`
        : `${count} objects of another type skipped (the first: ${what}): expected ${describeType(expected)}`,
    );
    this.expected = expected;
    this.object = object;
    this.count = count;
  }
}

/** Checks the `expectedType` option: undefined, or an object of non-empty strings. */
export function validateExpectedType(value: unknown): ExpectedType | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object')
    throw new InvalidOptionsError(`expectedType must be an object, got ${describeValue(value)}`);
  const { apiVersion, kind } = value as Record<string, unknown>;
  for (const [name, field] of [
    ['apiVersion', apiVersion],
    ['kind', kind],
  ] as const) {
    if (field !== undefined && (typeof field !== 'string' || field === ''))
      throw new InvalidOptionsError(`expectedType.${name} must be a non-empty string, got ${describeValue(field)}`);
  }
  if (apiVersion === undefined && kind === undefined) return undefined;
  return Object.freeze({ ...(apiVersion !== undefined && { apiVersion }), ...(kind !== undefined && { kind }) }) as ExpectedType;
}

/** False when `obj` declares an apiVersion or kind other than the expected one; true otherwise. */
export function hasExpectedType(expected: ExpectedType | undefined, obj: unknown): boolean {
  if (expected === undefined || obj === null || typeof obj !== 'object') return true;
  const { apiVersion, kind } = obj as KubeObject;
  return (
    (expected.kind === undefined || !declared(kind) || kind === expected.kind) &&
    (expected.apiVersion === undefined || !declared(apiVersion) || apiVersion === expected.apiVersion)
  );
}

/**
 * The items of the expected type (the same array when all are), and the error counting those
 * skipped so far, `previous` included.
 */
export function keepExpected<T>(
  expected: ExpectedType | undefined,
  items: T[],
  previous?: UnexpectedTypeError,
): { items: T[]; rejected?: UnexpectedTypeError } {
  if (expected === undefined || items.every((i) => hasExpectedType(expected, i))) return { items, rejected: previous };
  const kept = items.filter((i) => hasExpectedType(expected, i));
  return {
    items: kept,
    rejected: addRejected(
      expected,
      items.find((i) => !hasExpectedType(expected, i)),
      items.length - kept.length,
      previous,
    ),
  };
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
