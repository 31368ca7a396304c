/**
 * The request a builder's reconcile is given. A class rather than an object literal: its logger,
 * write API, signal and id are made on first read, on its prototype, so a reconcile that only reads
 * the cached object pays for none of them.
 */
import type { KubeObject, SharedInformer } from '@rxinformer/core';
import { childLogger, type Logger } from '../log/logger.ts';
import { nameOf, type ReconcileRequest, type RequestApi } from '../reconcile/request.ts';
import type { ReconcileRun } from '../reconcile/run.ts';
import type { WriteTracker } from './readYourWrites.ts';
import { requestApi, type WriteParts } from './writes.ts';

/** What the requests of a controller's term share. */
export interface RequestParts<T extends KubeObject> {
  /** The informer whose cache each request reads its object from. */
  readonly primary: SharedInformer<T>;
  /** The controller's logger (the request's is its child). */
  readonly log: Logger;
  readonly writes: WriteParts;
  readonly tracker: WriteTracker | undefined;
}

/** One reconcile's request: `key`, `object` and the names are fields; `signal`, `log` and `api` are made when read. */
export class CachedRequest<T extends KubeObject> implements ReconcileRequest<T> {
  readonly key: string;
  declare readonly cluster?: string;
  declare readonly namespace?: string;
  readonly name: string;
  readonly object: T | undefined;
  readonly #parts: RequestParts<T>;
  readonly #run: ReconcileRun;
  #log: Logger | undefined;
  #api: RequestApi | undefined;

  constructor(parts: RequestParts<T>, key: string, object: T | undefined, run: ReconcileRun) {
    const { cluster, namespace, name } = nameOf(key, object);
    this.key = key;
    if (cluster !== undefined) (this as { cluster?: string }).cluster = cluster;
    if (namespace !== undefined) (this as { namespace?: string }).namespace = namespace;
    this.name = name;
    this.object = object;
    this.#parts = parts;
    this.#run = run;
  }

  get signal(): AbortSignal {
    return this.#run.signal;
  }

  get log(): Logger {
    return (this.#log ??= childLogger(this.#parts.log, { key: this.key, reconcileID: this.#run.id }));
  }

  get api(): RequestApi {
    return (this.#api ??= requestApi(this.#parts.writes, this.#parts.tracker, this.key));
  }
}

/** Makes the request of each reconcile of a term: the key's object as the primary cache holds it now. */
export function requestsOf<T extends KubeObject>(parts: RequestParts<T>): (key: string, run: ReconcileRun) => CachedRequest<T> {
  return (key, run) => new CachedRequest(parts, key, parts.primary.getStore().get(key), run);
}
