/**
 * A `list` answered from a server's informer: its cache at its resource version, in pages of
 * `limit`. A paged list pins its snapshot (immutable, shared with the live cache) for a bounded
 * time under a continue token; an unknown or expired token is a 410 `Expired`, as kube-apiserver
 * answers a token older than its compaction, and the client lists again from the start.
 */
import { concatMap, defer, map, of, type Observable, type SchedulerLike } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import type { InformerFeed } from './informerFeed.ts';
import { failureStatus } from './protocol.ts';
import { atLeast, expired } from './revisionWait.ts';
import type { KubeObject, ListOptions, ListPage, ResourceDescriptor } from '../types.ts';

/** One pinned snapshot: its objects, resource version, and when it expires. */
interface Pin {
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
  expiresAt: number;
}

/**
 * The snapshots one connection's paged lists pin: at most `max`, each for `ttlMs` after its last
 * page was served (the oldest goes first when more are pinned).
 */
export class ListPins {
  readonly #pins = new Map<string, Pin>();
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #serial = 0;

  constructor(max: number, ttlMs: number, now: () => number) {
    this.#max = max;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** Pins `items` at `resourceVersion`; the token of the page that starts at `offset`. */
  pin(items: readonly KubeObject[], resourceVersion: string, offset: number): string {
    this.#expire();
    while (this.#pins.size >= this.#max) this.#pins.delete(this.#pins.keys().next().value!);
    const id = `p${++this.#serial}`;
    this.#pins.set(id, { items, resourceVersion, expiresAt: this.#now() + this.#ttlMs });
    return `${id}:${offset}`;
  }

  /** The pinned snapshot and offset a token names; `malformed`, or `expired` (unknown, or past its time). */
  take(token: string): { pin: Pin; id: string; offset: number } | 'malformed' | 'expired' {
    const m = /^(p[0-9]{1,15}):([0-9]{1,9})$/.exec(token);
    if (!m) return 'malformed';
    this.#expire();
    const pin = this.#pins.get(m[1]);
    const offset = Number(m[2]);
    if (!pin || offset > pin.items.length) return 'expired';
    pin.expiresAt = this.#now() + this.#ttlMs;
    return { pin, id: m[1], offset };
  }

  /** The token of the next page of pin `id`, or (its last page served) none, unpinning it. */
  next(id: string, offset: number): string | undefined {
    const pin = this.#pins.get(id);
    if (pin && offset < pin.items.length) return `${id}:${offset}`;
    this.#pins.delete(id);
    return undefined;
  }

  /** How many snapshots are pinned. */
  get size(): number {
    return this.#pins.size;
  }

  #expire(): void {
    const now = this.#now();
    for (const [id, pin] of this.#pins) if (pin.expiresAt <= now) this.#pins.delete(id);
  }
}

/** What `serveList` needs beside the request. */
export interface ListContext {
  readonly pins: ListPins;
  /** How long a list at a resource version the cache has not reached waits for it, in ms. */
  readonly rvWaitMs: number;
  readonly scheduler: SchedulerLike;
}

/**
 * The page `options` ask for, from `feed`'s cache: resourceVersion unset, `"0"`, or one the cache
 * has reached (`NotOlderThan`, the default) or is at (`Exact`, else 410); a continue token's next page
 * of its pinned snapshot.
 *
 * @example
 * serveList(feed, pods, { limit: 500 }, context).subscribe((page) => reply({ t: 'page', id, page }));
 */
export function serveList(
  feed: InformerFeed,
  resource: ResourceDescriptor,
  options: ListOptions,
  context: ListContext,
): Observable<ListPage> {
  if (options.continue) return defer(() => of(continued(resource, options, context.pins)));
  const rv = options.resourceVersion;
  const fromCache = rv === undefined || rv === '' || rv === '0';
  return feed.ready$.pipe(
    concatMap(() => (fromCache ? of(undefined) : atLeast(feed, rv, context.rvWaitMs, context.scheduler))),
    map(() => {
      const { items, resourceVersion } = feed.snapshot();
      if (!fromCache && options.resourceVersionMatch === 'Exact' && rv !== resourceVersion)
        throw expired(`the cache is at resource version ${resourceVersion}, not exactly ${rv}`);
      const end = endOf(items.length, 0, options.limit);
      const token = end < items.length && !options.singlePage ? context.pins.pin(items, resourceVersion, end) : undefined;
      return pageOf(resource, items, resourceVersion, 0, end, token);
    }),
  );
}

/** The page a continue token names. */
function continued(resource: ResourceDescriptor, options: ListOptions, pins: ListPins): ListPage {
  const taken = pins.take(options.continue!);
  if (taken === 'malformed')
    throw new KubeApiError(400, { status: failureStatus(400, 'BadRequest', 'continue key is not valid: not a token this server gave') });
  if (taken === 'expired')
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  const { pin, id, offset } = taken;
  const end = endOf(pin.items.length, offset, options.limit);
  return pageOf(resource, pin.items, pin.resourceVersion, offset, end, pins.next(id, end));
}

const endOf = (length: number, offset: number, limit: number | undefined): number =>
  limit === undefined || limit <= 0 ? length : Math.min(length, offset + limit);

function pageOf(
  resource: ResourceDescriptor,
  items: readonly KubeObject[],
  resourceVersion: string,
  offset: number,
  end: number,
  token: string | undefined,
): ListPage {
  const remaining = items.length - end;
  const kind = resource.metadataOnly ? 'PartialObjectMetadata' : resource.kind;
  return {
    apiVersion: resource.metadataOnly ? 'meta.k8s.io/v1' : resource.group ? `${resource.group}/${resource.version}` : resource.version,
    ...(kind !== undefined && { kind: `${kind}List` }),
    metadata: { resourceVersion, ...(token !== undefined && { continue: token }), ...(remaining > 0 && { remainingItemCount: remaining }) },
    items: items.slice(offset, end),
  };
}
