/**
 * What a subscription may ask the hub to send of each object instead of the whole of it (its
 * `projection` field): field paths (`{ paths }`: core's `project()`, run on the hub once per object
 * for every stream that asks the same paths) or the server's Table rows (`{ table: true }`: one
 * Table-rows informer per resource and scope, shared the same way as the full one).
 */
import { InvalidOptionsError, project, type KubeObject } from '@rxinformer/core';
import { statusError } from './access.ts';
import type { ProjectionProvider } from './options.ts';

/** How a subscription's objects are sent: whole, as a transform of the whole, or from a Table-rows informer. */
export type ServedForm = { readonly table: boolean; readonly transform?: (o: KubeObject) => KubeObject };

/** Options of `fieldPathProjections`. */
export interface FieldPathProjectionOptions {
  /** Most paths one projection may name. Default 256. */
  maxPaths?: number;
}

/**
 * The hub's default projections: `{ paths: ['status.phase', 'spec.nodeName', …] }` keeps those
 * paths and the informer's own fields (core's `project()`, `INFORMER_FIELDS`), nothing else.
 *
 * @example
 * createHub({ clusters, authenticator, authorizer, projections: fieldPathProjections({ maxPaths: 64 }) });
 *
 * Caveat: a path that is not one (core's `FieldPathError`) is refused with 400, as is anything but
 * `{ paths: string[] }`.
 */
export function fieldPathProjections(options: FieldPathProjectionOptions = {}): ProjectionProvider {
  const maxPaths = options.maxPaths ?? 256;
  const pathsOf = (projection: unknown): string[] => {
    const paths = (projection as { paths?: unknown } | null)?.paths;
    if (
      typeof projection !== 'object' ||
      Object.keys(projection!).length !== 1 ||
      !Array.isArray(paths) ||
      paths.length === 0 ||
      paths.length > maxPaths ||
      !paths.every((p) => typeof p === 'string')
    )
      throw new InvalidOptionsError(`projection must be { paths: [...] }, 1 to ${maxPaths} field paths, or { table: true }`);
    return paths as string[];
  };
  const compiled = (projection: unknown) => {
    try {
      return project(pathsOf(projection));
    } catch (error) {
      if (error instanceof InvalidOptionsError) throw error;
      throw new InvalidOptionsError(`projection: ${(error as Error).message}`, { cause: error });
    }
  };
  return {
    keyOf: (projection) => compiled(projection).key,
    transformOf: (projection) => compiled(projection) as unknown as (o: KubeObject) => KubeObject,
  };
}

/**
 * Each distinct projection's transform, memoized per object for every stream that asks it (an
 * object is projected once per projection, whatever the number of clients), at most `max` of them
 * per hub: one more is answered 429.
 */
export class Projections {
  readonly #provider: ProjectionProvider;
  readonly #byKey = new Map<string, (o: KubeObject) => KubeObject>();
  readonly #max: number;

  constructor(provider: ProjectionProvider = fieldPathProjections(), max = 1024) {
    this.#provider = provider;
    this.#max = max;
  }

  /** How a subscription asking `projection` is served; a 400 for one refused, a 429 past `max`. */
  formOf(projection: unknown): ServedForm {
    if (projection === undefined) return { table: false };
    if (isTable(projection)) return { table: true };
    const key = this.#provider.keyOf(projection);
    let transform = this.#byKey.get(key);
    if (!transform) {
      if (this.#byKey.size >= this.#max)
        throw statusError(429, 'TooManyRequests', `this hub serves at most ${this.#max} distinct projections`);
      const fn = this.#provider.transformOf(projection);
      const done = new WeakMap<KubeObject, KubeObject>();
      transform = (o) => {
        let out = done.get(o);
        if (!out) done.set(o, (out = fn(o)));
        return out;
      };
      this.#byKey.set(key, transform);
    }
    return { table: false, transform };
  }
}

const isTable = (p: unknown): boolean =>
  typeof p === 'object' && p !== null && Object.keys(p).length === 1 && (p as { table?: unknown }).table === true;
