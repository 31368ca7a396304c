/**
 * WATCH streams: one chunked `application/json` response per watch, one `{"type","object"}` line
 * per event, flushed as it happens. Handles synthetic ADDED for RV unset/"0", replay from the
 * history for RV=N, ERROR 410 for compacted revisions, selector transitions (ADDED/DELETED),
 * streaming lists (`sendInitialEvents`) ending in the initial-events-end BOOKMARK, periodic
 * bookmarks and `timeoutSeconds` (the lines themselves: `watchEvents.ts`). Every open stream is
 * registered in a `WatchHub` so faults can drop, stall, corrupt or fail it.
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject, Status } from '@rxinformer/core';
import { encodeLines, LineBatch } from './lineBatch.ts';
import { gvrKey } from './resources.ts';
import { tooOldStatus } from './status.ts';
import { CompactedError, type Storage, type StoredEvent } from './storage.ts';
import { after, every, type CancelTimer } from './timers.ts';
import { bookmarkLine, eventLine, objectLine, type WatchSpec } from './watchEvents.ts';

/** Initial events (replayed or listed) written per batch before letting the socket drain. */
const INITIAL_BATCH = 500;
/** Unsent bytes above which the next batch of initial events waits for `drain`. */
const INITIAL_HIGH_WATER = 4 * 1024 * 1024;

/** Where open sessions are registered (the server's `WatchHub`, through which faults reach them). */
export interface WatchRegistry {
  /** Registers a session that has started streaming. */
  add(session: WatchSession): void;
  /** Unregisters a session that is over. */
  remove(session: WatchSession): void;
}

/** One open watch stream. */
export class WatchSession {
  readonly id: number;
  readonly spec: WatchSpec;
  readonly #res: ServerResponse;
  readonly #storage: Storage;
  readonly #hub: WatchRegistry;
  #unsubscribe: (() => void) | undefined;
  #timers: CancelTimer[] = [];
  #closed = false;
  /** Events at or below this revision are already covered by the start of the stream. */
  #after = 0;
  /** A stalled stream keeps its connection but sends nothing more. */
  stalled = false;
  /** Events written (bench and stats). */
  sent = 0;

  constructor(id: number, spec: WatchSpec, res: ServerResponse, storage: Storage, hub: WatchRegistry) {
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
    this.#startTimeout();
    const start = this.spec.start;
    if (start.kind === 'from') this.#replayFrom(start.rv);
    else this.#listThenFollow(start.kind === 'initialEvents');
  }

  /**
   * Ends the stream after `timeoutSeconds`, with a bookmark 2 s before when the client allows them,
   * as kube-apiserver's cacher does: not when that moment is already past, nor within the second
   * after a watch-list's end bookmark (its bookmark timer ticks once a second).
   */
  #startTimeout(): void {
    const { spec } = this;
    const ms = spec.timeoutSeconds * 1000;
    const before = ms - 2000;
    if (spec.allowBookmarks && before > (spec.start.kind === 'initialEvents' ? 1000 : 0)) {
      this.#timers.push(
        after(spec.scheduler, before, () => {
          if (!this.stalled && this.#unsubscribe) this.#bookmark(String(this.#storage.resourceVersion), false);
        }),
      );
    }
    this.#timers.push(
      after(spec.scheduler, ms, () => {
        if (!this.stalled) this.end();
      }),
    );
  }

  /**
   * A step of `#inBatches` writing the history after `rv`: the whole stream of a watch from a
   * revision, and the tail of one that starts with the current objects (changes committed while
   * those went out).
   */
  #replaySince(rv: number): () => boolean {
    const gvr = gvrKey(this.spec.res);
    return () => {
      const events = this.#storage.eventsSince(gvr, rv, INITIAL_BATCH);
      for (const e of events) {
        this.#onEvent(e);
        rv = e.rv;
        if (this.#pending.chars >= this.#highWater) return false;
      }
      return events.length < INITIAL_BATCH;
    };
  }

  /** A watch from revision `rv`: ERROR 410 when the history no longer reaches it, else its replay. */
  #replayFrom(rv: number): void {
    const compacted = this.#storage.watchCompactedRevision(gvrKey(this.spec.res));
    if (rv < compacted) {
      this.#writeLine(JSON.stringify({ type: 'ERROR', object: tooOldStatus(rv, compacted) }));
      this.end();
      return;
    }
    this.#after = rv;
    this.#inBatches(this.#replaySince(rv));
  }

  /**
   * A watch that starts with ADDED for every current match (RV unset or "0", or a streaming list,
   * which then sends the initial-events-end bookmark), then every change after that revision.
   */
  #listThenFollow(initialEvents: boolean): void {
    const { spec } = this;
    const gvr = gvrKey(spec.res);
    const rv = this.#storage.resourceVersion;
    this.#after = rv;
    const prefix = spec.res.namespaced && spec.namespace !== undefined ? `${spec.namespace}/` : undefined;
    let from = '';
    let listed = false;
    const changesSince = this.#replaySince(rv);
    this.#inBatches(() => {
      if (listed) return changesSince();
      // the view at the watch's start revision, also once later changes were committed
      const snapshot = this.#storage.snapshot(gvr, rv);
      let n = 0;
      for (const key of snapshot.keys(from, prefix)) {
        if (n === INITIAL_BATCH || this.#pending.chars >= this.#highWater) {
          from = key;
          return false;
        }
        n += 1;
        const obj = snapshot.get(key);
        if (obj && spec.matcher.matches(obj)) this.#send('ADDED', obj, obj.metadata?.resourceVersion ?? '');
      }
      if (initialEvents) this.#bookmark(String(rv), true);
      // Then every change after `rv`, as a real server does: those committed between the batches
      // above are in the history, not yet in the storage's live feed this stream follows.
      listed = true;
      return changesSince();
    });
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
      this.#timers.push(every(spec.scheduler, spec.bookmarkIntervalMs, () => this.#bookmark(String(this.#storage.resourceVersion), false)));
    }
  }

  #onEvent(e: StoredEvent): void {
    if (e.rv <= this.#after) return;
    const line = eventLine(e, this.spec);
    if (line !== undefined) this.#writeLine(line);
  }

  #send(type: string, obj: KubeObject, rv: string): void {
    this.#writeLine(objectLine(type, obj, rv, this.spec.render));
  }

  #bookmark(rv: string, initialEnd: boolean): void {
    // a streaming list without allowWatchBookmarks gets its initial events but no end marker
    if (!this.spec.allowBookmarks) return;
    this.#writeLine(bookmarkLine(this.spec.res, rv, initialEnd, this.spec.renderBookmark));
  }

  /** Lines committed in this tick, written together as one chunk on the next tick. */
  readonly #pending = new LineBatch();

  #writeLine(line: string): void {
    if (this.#closed || this.stalled) return;
    if (this.#pending.push(line)) process.nextTick(() => this.#flush());
    this.sent += 1;
  }

  /** Writes the pending lines as one chunk (dropped when the stream is over or stalled). */
  #flush(): void {
    if (this.#pending.chars === 0) return;
    const lines = this.#pending.take();
    if (this.#closed || this.stalled) return;
    const buf = encodeLines(lines);
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
    for (const cancel of this.#timers) cancel();
    this.#timers = [];
    this.#hub.remove(this);
  }
}
