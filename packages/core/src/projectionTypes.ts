/** The types of projections: what a projected informer holds and how a descriptor names its projection. */
import type { KubeObject } from './types.ts';

/**
 * What a projection keeps of `T`: the same shape, every field optional all the way down, but the
 * metadata typed as it is (a projection keeps its informer fields: see `INFORMER_FIELDS`).
 */
export type Projected<T> = T extends KubeObject ? { [K in keyof T]?: K extends 'metadata' ? T[K] : PartialDeep<T[K]> } : PartialDeep<T>;

/**
 * `T` with every field optional, all the way down (arrays of partial elements; Dates as they are;
 * maps such as labels keep their values: a key present holds one).
 */
export type PartialDeep<T> = T extends readonly (infer E)[]
  ? PartialDeep<E>[]
  : T extends Date
    ? T
    : T extends object
      ? string extends keyof T
        ? { [K in keyof T]: PartialDeep<T[K]> }
        : { [K in keyof T]?: PartialDeep<T[K]> }
      : T;

/** A projection of any object type, as a descriptor holds it (`Projection<V1Pod>` is one). */
export interface DescriptorProjection {
  /** The projected copy of an object of the descriptor's type. */
  (obj: never): unknown;
  /** The paths asked for (see `Projection`). */
  readonly paths: readonly string[];
  /** Equal for projections of the same paths. */
  readonly key: string;
}

/**
 * A compiled projection (`project(paths)`): called with an object, a new object holding only its
 * paths and the informer's own fields. Usable as a `transform`.
 */
export interface Projection<T extends KubeObject = KubeObject> {
  /** The projected copy of `obj` (`obj` is left as it is). */
  (obj: T): Projected<T>;
  /** The paths asked for, each written the canonical way, without duplicates, sorted. */
  readonly paths: readonly string[];
  /** Equal for projections of the same paths: what a factory keys projected informers by. */
  readonly key: string;
}
