/**
 * WATCH streams: one chunked `application/json` response per watch, one `{"type","object"}` line
 * per event, flushed as it happens. Handles synthetic ADDED for RV unset/"0", replay from the
 * history for RV=N, ERROR 410 for compacted revisions, selector transitions (ADDED/DELETED),
 * streaming lists (`sendInitialEvents`) ending in the initial-events-end BOOKMARK, periodic
 * bookmarks and `timeoutSeconds`. Every open stream is registered in a `WatchHub` so faults can
 * drop, stall, corrupt or fail it.
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject, Status } from '@rxinformer/core';
import { INITIAL_EVENTS_END_ANNOTATION } from '@rxinformer/core';
import type { ResourceInfo } from './resources.ts';
import { groupVersion, gvrKey } from './resources.ts';
import type { ObjectMatcher } from './selectors.ts';
import { watchLine } from './serialize.ts';
import { failure } from './status.ts';
import { CompactedError, type Storage, type StoredEvent } from './storage.ts';
import type { WatchHub } from './watchHub.ts';

/** How a watch starts. */
export type WatchStart =
  /** ADDED for every current match, then changes (RV unset or "0"). */
  | { kind: 'synthetic' }
  /** Changes after this revision. */
  | { kind: 'from'; rv: number }
  /** Streaming list: ADDED for every current match, then the initial-events-end bookmark (with `allowBookmarks`). */
  | { kind: 'initialEvents' };

/** Everything a watch stream needs. */
export interface WatchSpec {
  res: ResourceInfo;
  namespace?: string;
  matcher: ObjectMatcher;
  start: WatchStart;
  allowBookmarks: boolean;
  timeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** Converts an object for the wire (Table output); identity when absent. */
  render?: (obj: KubeObject, rv: string) => unknown;
  /** Closes the stream when this many bytes wait unsent (default 64 MiB: the watcher is too slow). */
  maxBufferedBytes?: number;
}

/** Initial events (replayed or listed) written per batch before letting the socket drain. */
const INITIAL_BATCH = 500;
/** Unsent bytes above which the next batch of initial events waits for `drain`. */
const INITIAL_HIGH_WATER = 4 * 1024 * 1024;

let lastEvent: StoredEvent | undefined;
let lastLine = '';

/** The ERROR a compacted watch receives. */
export function tooOldStatus(requested: number, compacted: number): Status {
  return failure(410, 'Expired', `too old resource version: ${requested} (${compacted + 1})`);
}

/** One open watch stream. */
export class WatchSession {
  readonly id: number;
  readonly spec: WatchSpec;
  readonly #res: ServerResponse;
  readonly #storage: Storage;
  readonly #hub: WatchHub;
  #unsubscribe: (() => void) | undefined;
  #timers: NodeJS.Timeout[] = [];
  #closed = false;
  /** Events at or below this revision are already covered by the start of the stream. */
  #after = 0;
  /** A stalled stream keeps its connection but sends nothing more. */
  stalled = false;
  /** Events written (bench and stats). */
  sent = 0;

  constructor(id: number, spec: WatchSpec, res: ServerResponse, storage: Storage, hub: WatchHub) {
    this.id = id;
    this.spec = spec;
    this.#res = res;
    this.#storage = storage;
    this.#hub = hub;
  }

  /**
   * Writes the header and the initial events (history replay or current objects), then follows
   * the storage. The initial events go out in batches that wait for the socket to drain, so a
   * long replay or a large initial list never piles up in memory (nor trips `maxBufferedBytes`).
   * A response already closed (the client left while the request waited for latency or a
   * revision) starts nothing: no registration in the hub, no timer.
   */
  start(): void {
    const { spec } = this;
    const res = this.#res;
    // the client left (or the server closed) while the request waited: nothing to register
    if (res.destroyed || res.closed) {
      this.#closed = true;
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    res.on('close', () => this.#cleanup());
    this.#hub.add(this);
    const gvr = gvrKey(spec.res);
    const start = spec.start;
    const timeout = setTimeout(() => {
      if (this.stalled) return;
      if (spec.allowBookmarks && this.#unsubscribe) this.#bookmark(String(this.#storage.resourceVersion), false);
      this.end();
    }, spec.timeoutSeconds * 1000);
    this.#timers.push(timeout);
    // The history after `rv`, in batches: the whole stream of a watch from a revision, and the tail
    // of one that starts with the current objects (changes committed while those went out).
    const replaySince =
      (rv: number): (() => boolean) =>
      () => {
        const events = this.#storage.eventsSince(gvr, rv, INITIAL_BATCH);
        for (const e of events) {
          this.#onEvent(e);
          rv = e.rv;
          if (this.#pendingBytes >= this.#highWater) return false;
        }
        return events.length < INITIAL_BATCH;
      };
    if (start.kind === 'from') {
      const compacted = this.#storage.watchCompactedRevision(gvr);
      if (start.rv < compacted) {
        this.#writeLine(JSON.stringify({ type: 'ERROR', object: tooOldStatus(start.rv, compacted) }));
        this.end();
        return;
      }
      this.#after = start.rv;
      this.#inBatches(replaySince(start.rv));
    } else {
      const rv = this.#storage.resourceVersion;
      this.#after = rv;
      const prefix = spec.res.namespaced && spec.namespace !== undefined ? `${spec.namespace}/` : undefined;
      let from = '';
      let listed = false;
      const changesSince = replaySince(rv);
      this.#inBatches(() => {
        if (listed) return changesSince();
        // the view at the watch's start revision, also once later changes were committed
        const snapshot = this.#storage.snapshot(gvr, rv);
        let n = 0;
        for (const key of snapshot.keys(from, prefix)) {
          if (n === INITIAL_BATCH || this.#pendingBytes >= this.#highWater) {
            from = key;
            return false;
          }
          n += 1;
          const obj = snapshot.get(key);
          if (obj && spec.matcher.matches(obj)) this.#send('ADDED', obj, obj.metadata?.resourceVersion ?? '');
        }
        if (start.kind === 'initialEvents') this.#bookmark(String(rv), true);
        // Then every change after `rv`, as a real server does: those committed between the batches
        // above are in the history, not yet in the storage's live feed this stream follows.
        listed = true;
        return changesSince();
      });
    }
  }

  /**
   * Runs `step` (which writes up to one batch and says whether it was the last) until done, letting
   * the socket drain between batches, then follows the storage. A compacted history on the way
   * ends the stream with ERROR 410, as for a watcher that fell too far behind.
   */
  #inBatches(step: () => boolean): void {
    const run = (): void => {
      if (this.#closed) return;
      let done: boolean;
      try {
        done = step();
      } catch (e) {
        if (!(e instanceof CompactedError)) throw e;
        this.error(tooOldStatus(e.requested, e.compacted));
        return;
      }
      // caught up: following starts in the same tick, so no commit falls in between
      if (done) return this.#follow();
      this.#flush();
      if (this.#closed) return;
      if (this.#res.writableLength > this.#highWater) this.#res.once('drain', run);
      else setImmediate(run);
    };
    run();
  }

  /** Unsent bytes above which initial events wait: 4 MiB, or a quarter of `maxBufferedBytes`. */
  get #highWater(): number {
    return Math.min(INITIAL_HIGH_WATER, this.#maxBuffered / 4);
  }

  get #maxBuffered(): number {
    return this.spec.maxBufferedBytes ?? 64 * 1024 * 1024;
  }

  #follow(): void {
    const { spec } = this;
    if (this.#closed) return;
    this.#unsubscribe = this.#storage.subscribe(gvrKey(spec.res), (e) => this.#onEvent(e));
    if (spec.allowBookmarks && spec.bookmarkIntervalMs > 0) {
      const t = setInterval(() => this.#bookmark(String(this.#storage.resourceVersion), false), spec.bookmarkIntervalMs);
      this.#timers.push(t);
    }
  }

  #onEvent(e: StoredEvent): void {
    const { spec } = this;
    const ns = spec.namespace;
    if (e.rv <= this.#after) return;
    if (spec.res.namespaced && ns !== undefined && e.object.metadata?.namespace !== ns) return;
    const rv = String(e.rv);
    if (spec.matcher.everything && !spec.render) {
      // every watcher of this event gets the same line, serialized once (and not kept with the history)
      if (lastEvent !== e) {
        lastEvent = e;
        lastLine = watchLine(e.type, e.object);
      }
      this.#writeLine(lastLine);
      return;
    }
    const now = spec.matcher.matches(e.object);
    if (e.type === 'MODIFIED') {
      const before = e.prev !== undefined && spec.matcher.matches(e.prev);
      if (now && before) this.#send('MODIFIED', e.object, rv);
      else if (now) this.#send('ADDED', e.object, rv);
      else if (before && e.prev) this.#send('DELETED', { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: rv } }, rv);
    } else if (now) this.#send(e.type, e.object, rv);
  }

  #send(type: string, obj: KubeObject, rv: string): void {
    const object = this.spec.render ? this.spec.render(obj, rv) : obj;
    this.#writeLine(JSON.stringify({ type, object }));
  }

  #bookmark(rv: string, initialEnd: boolean): void {
    // a streaming list without allowWatchBookmarks gets its initial events but no end marker
    if (!this.spec.allowBookmarks) return;
    const { res } = this.spec;
    const metadata: Record<string, unknown> = { resourceVersion: rv };
    if (initialEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.#writeLine(JSON.stringify({ type: 'BOOKMARK', object: { kind: res.kind, apiVersion: groupVersion(res), metadata } }));
  }

  /** Lines (without newline) committed in this tick, written together as one chunk on the next tick. */
  #pending: string[] = [];
  /** Characters in `#pending`, newlines included. */
  #pendingBytes = 0;

  #writeLine(line: string): void {
    if (this.#closed || this.stalled) return;
    if (this.#pending.length === 0) process.nextTick(() => this.#flush());
    this.#pending.push(line);
    this.#pendingBytes += line.length + 1;
    this.sent += 1;
  }

  /**
   * Writes the pending lines as one chunk: each line is UTF-8 encoded straight into one buffer
   * (no joined string: a multi-megabyte string per tick is a large-object allocation the GC pays
   * for, and would be encoded again by the socket).
   */
  #flush(): void {
    const lines = this.#pending;
    if (lines.length === 0) return;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#closed || this.stalled) return;
    let size = 0;
    for (const line of lines) size += Buffer.byteLength(line) + 1;
    const buf = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (const line of lines) {
      at += buf.write(line, at);
      buf[at++] = 10;
    }
    this.#res.write(buf);
    if (this.#res.writableLength > this.#maxBuffered) this.drop();
  }

  /** Writes raw bytes (a fault: e.g. a malformed line). */
  writeRaw(text: string): void {
    if (this.#closed || this.stalled) return;
    this.#flush();
    this.#res.write(text);
  }

  /** Sends an ERROR event carrying `status`, then ends the stream. */
  error(status: Status): void {
    this.#writeLine(JSON.stringify({ type: 'ERROR', object: status }));
    this.end();
  }

  /** Ends the stream cleanly (final chunk). */
  end(): void {
    if (this.#closed) return;
    this.#flush(); // lines still pending would be lost by end()
    this.#cleanup();
    this.#res.end();
  }

  /** Drops the connection abruptly (no final chunk). */
  drop(): void {
    this.#cleanup();
    this.#res.socket?.destroy();
    this.#res.destroy();
  }

  /** Bytes written but not yet taken by the socket (what a slow watcher leaves behind). */
  get bufferedBytes(): number {
    return this.#closed ? 0 : this.#res.writableLength;
  }

  /** True once the stream is over. */
  get closed(): boolean {
    return this.#closed;
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    for (const t of this.#timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.#timers = [];
    this.#hub.remove(this);
  }
}
