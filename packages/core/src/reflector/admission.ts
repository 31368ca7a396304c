/**
 * The reflector's check of each object it receives, before it keeps anything of it: the type the
 * object declares against the `expectedType` first, then, for a metadata-only reflector, its
 * reduction to `PartialObjectMetadata` (the full objects of a server that ignores `as=`). In that
 * order, so an object of another kind is skipped whole, never kept as its metadata.
 */
import { addRejected, hasExpectedType, type ExpectedType, type UnexpectedTypeError } from '../expectedType.ts';
import { asPartialObjectMetadata } from '../partialObjectMetadata.ts';

/**
 * An object let in, as it is to be kept (reduced to its metadata where metadata was expected;
 * `full`: it carried more, or declared the resource's own type), or `undefined`: skipped.
 */
export type Admitted<T> = { object: T; full: boolean } | undefined;

/** True when `expected` is the type of metadata-only reflectors. */
export function expectsMetadata(expected: ExpectedType | undefined): boolean {
  return expected?.kind === 'PartialObjectMetadata';
}

/**
 * `obj` checked against `expected`: skipped when it declares another type. A metadata-only
 * reflector also lets in the full objects of the resource's type (`metadataOf`; of any type when
 * unknown), reduced to their metadata.
 */
export function admit<T>(expected: ExpectedType | undefined, obj: T): Admitted<T> {
  if (!expectsMetadata(expected)) return hasExpectedType(expected, obj) ? { object: obj, full: false } : undefined;
  const { metadataOf } = expected!;
  if (metadataOf !== undefined && !hasExpectedType(expected, obj) && !hasExpectedType(metadataOf, obj)) return undefined;
  return asPartialObjectMetadata(obj);
}

/**
 * The items of a list page let in (the same array when every one is let in as it is), the error
 * counting those skipped so far (`previous` included), and the first full object let in, if any.
 */
export function admitItems<T>(
  expected: ExpectedType | undefined,
  items: T[],
  previous?: UnexpectedTypeError,
): { items: T[]; rejected?: UnexpectedTypeError; full?: unknown } {
  if (expected === undefined) return { items, rejected: previous };
  let kept: T[] | undefined; // a copy, from the first item not kept as it is
  let full: unknown;
  let firstSkipped: unknown;
  let skipped = 0;
  for (let i = 0; i < items.length; i++) {
    const a = admit(expected, items[i]);
    if (a?.full && full === undefined) full = items[i];
    if (a === undefined && skipped++ === 0) firstSkipped = items[i];
    if (kept === undefined && a?.object !== items[i]) kept = items.slice(0, i);
    if (kept !== undefined && a !== undefined) kept.push(a.object);
  }
  const rejected = skipped > 0 ? addRejected(expected, firstSkipped, skipped, previous) : previous;
  return { items: kept ?? items, rejected, ...(full !== undefined && { full }) };
}
