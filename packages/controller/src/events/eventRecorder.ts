/**
 * An event recorder as client-go's `tools/events` broadcaster: events.k8s.io/v1 Events (core/v1
 * where the server has no events.k8s.io), the repeats of one event within a window counted in its
 * `series` instead of new Events, and a token bucket per object against event storms.
 */
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';
import { checkNumber, checkScheduler, pathSegment } from '@rxinformer/core/http';
import { checkDuration, intervalEvery } from '@rxinformer/core/time';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { ApiClient } from '../client/apiClient.ts';
import { isConflict, isInvalid, isNotFound } from '../client/apiError.ts';
import {
  cutNote,
  eventCore,
  eventKey,
  eventName,
  eventV1,
  referenceTo,
  refKey,
  seriesCore,
  seriesV1,
  type EventInfo,
  type EventSource,
} from './eventBody.ts';

/** Options of `createEventRecorder`. */
export interface EventRecorderOptions extends EventSource {
  /** Where the Events are written. */
  client: ApiClient;
  /** A repeat within this many ms of the last occurrence joins its series: a finite number >= 0. Default 6 minutes (client-go's). */
  seriesWindowMs?: number;
  /**
   * Repeats after the first are written (as a series count) at most this often, in ms: a number
   * >= 1 of any length (a period past a JavaScript timer's 24.8 days is waited out, not a busy
   * loop), or `Infinity` to write them only on `flush` and `stop`. Default 30 s.
   */
  seriesRefreshMs?: number;
  /** Events of one object allowed at once. Default 25 (client-go's). */
  burst?: number;
  /** One more event of an object allowed every this many ms: a finite number >= 1 (a rate, no timer). Default 5 minutes (client-go's). */
  refillMs?: number;
  /**
   * Series and spam budgets kept, at most this many of each: past it, the least recently seen is
   * forgotten (a series's count not written yet is written first; a forgotten budget starts full
   * again). Default 4096 (client-go's record package). An integer ≥ 1, else `InvalidOptionsError`.
   */
  maxEntries?: number;
  /** `events.k8s.io/v1` or `v1`. Default: events.k8s.io/v1 when the server serves it (asked once). */
  api?: 'events.k8s.io/v1' | 'v1';
  /** Where time is read and the refresh runs (a `TestScheduler` in tests). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Told of each failed write (the event is not retried). Default `console.warn`. */
  onError?: (error: unknown) => void;
}

/** Records events about objects; writes happen in the background. */
export interface EventRecorder {
  /** Records one occurrence of `info` about `regarding`; dropped when the object is over its spam budget. */
  event(regarding: KubeObject, info: EventInfo): void;
  /** Writes the series counts not written yet, and resolves once every write so far is settled. */
  flush(): Promise<void>;
  /** Stops the refresh and flushes. Later `event` calls are ignored. */
  stop(): Promise<void>;
  /** Occurrences dropped by the spam filter so far. */
  readonly dropped: number;
}

/** What aggregation needs of one event: where its Event is, which one (uid), its count and last time. */
interface Series {
  /** Its key in the recorder's map. */
  key: string;
  namespace: string;
  name: string;
  /** The uid of the Event this recorder created (`''` if the answer had none); unset until the create answers, and if it failed. */
  uid?: string;
  count: number;
  written: number;
  lastMs: number;
  /** The last write of the series (its create, then each count), settled; it holds no answer. */
  write: Promise<void>;
}

/**
 * Creates a recorder. The first occurrence of an event (same object, action, reason, type, note
 * and related object) creates an Event; a repeat within `seriesWindowMs` of the previous one counts
 * in its `series`: the second is written at once, later ones every `seriesRefreshMs` (and on `flush`).
 *
 * Event names are the object's name, the time and a part unique to the recorder, so recorders in
 * one process or many never write the same Event; a count is written only to the Event the
 * recorder created (a merge patch on condition of its uid). Notes are cut to 1,024 bytes of UTF-8.
 *
 * @example
 * const recorder = createEventRecorder({ client, reportingController: 'example.com/replicator', reportingInstance: hostname() });
 * recorder.event(cm, { type: 'Normal', reason: 'Replicated', action: 'Replicate', note: 'copied to 3 namespaces' });
 */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  return new Recorder(checkOptions(options));
}

type Resolved = ReturnType<typeof checkOptions>;

class Recorder implements EventRecorder {
  /** Occurrences the spam filter dropped. */
  dropped = 0;
  private readonly scheduler: SchedulerLike;
  /** Series by event key, least recently seen first. */
  private readonly series = new Map<string, Series>();
  /** Spam budgets by object, least recently used first. */
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();
  private readonly pending = new Set<Promise<void>>();
  private readonly tick: Subscription;
  /** This recorder's part of every Event name: random, so no other recorder has it. */
  private readonly id = randomHex(6);
  private apiVersion?: Promise<'events.k8s.io/v1' | 'v1'>;
  private seq = 0;
  private stopped = false;

  private readonly o: Resolved;

  constructor(o: Resolved) {
    this.o = o;
    this.scheduler = o.scheduler ?? asyncScheduler;
    this.tick = intervalEvery(o.seriesRefreshMs, this.scheduler).subscribe(() => this.refresh());
  }

  event(regarding: KubeObject, given: EventInfo): void {
    if (this.stopped) return;
    const now = this.scheduler.now();
    const ref = referenceTo(regarding);
    if (!this.allowed(refKey(ref), now)) {
      this.dropped++;
      return;
    }
    const info = { ...given, note: cutNote(given.note) };
    const key = eventKey(this.o, ref, info);
    const s = this.series.get(key);
    if (s && now - s.lastMs <= this.o.seriesWindowMs) {
      s.count++;
      s.lastMs = now;
      touch(this.series, key, s);
      if (s.count === 2) this.writeSeries(s);
      return;
    }
    const meta = { namespace: ref.namespace || 'default', name: eventName(ref.name, now, `${this.id}${(this.seq++).toString(16)}`) };
    if (s) this.writeSeries(s); // its window passed: its last count, then a new Event
    const created: Series = { key, ...meta, count: 1, written: 1, lastMs: now, write: Promise.resolve() };
    created.write = this.track(
      this.version().then(async (v) => {
        const body = v === 'v1' ? eventCore(meta, this.o, ref, info, now) : eventV1(meta, this.o, ref, info, now);
        const answer = await this.o.client.request<KubeObject>({ method: 'POST', path: this.path(v, meta.namespace), body });
        created.uid = answer?.metadata?.uid ?? ''; // all that is kept of the answer
      }),
      () => this.forget(created), // not created: the next occurrence creates it anew
    );
    touch(this.series, key, created);
    if (this.series.size > this.o.maxEntries) this.evictOldest();
  }

  async flush(): Promise<void> {
    for (const s of this.series.values()) this.writeSeries(s);
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.tick.unsubscribe();
    await this.flush();
  }

  /**
   * Writes the series count of `s` when it moved on since the last write, after the writes before
   * it, and only to the Event this recorder created: skipped when the create failed. A 404 (the
   * Event is gone) or the refused uid condition (kube-apiserver answers a merge patch's other uid
   * with 422 "field is immutable", a PUT's with 409) ends the series.
   */
  private writeSeries(s: Series): void {
    if (s.count === s.written) return;
    const { count, lastMs } = s;
    s.written = count;
    s.write = this.track(
      s.write.then(async () => {
        if (s.uid === undefined) return;
        const v = await this.version();
        const body = v === 'v1' ? seriesCore(s.uid, count, lastMs) : seriesV1(s.uid, count, lastMs);
        const path = `${this.path(v, s.namespace)}/${pathSegment('name', s.name)}`;
        await this.o.client.request({ method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });
      }),
      (e) => {
        if (isNotFound(e) || isConflict(e) || isInvalid(e)) this.forget(s);
      },
    );
  }

  /** Takes a token of `key`'s bucket, if it has one. */
  private allowed(key: string, now: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.o.burst, atMs: now };
    b.tokens = Math.min(this.o.burst, b.tokens + (now - b.atMs) / this.o.refillMs);
    b.atMs = now;
    touch(this.buckets, key, b);
    // past the cap, the least recently used budget is forgotten (that object starts full again)
    if (this.buckets.size > this.o.maxEntries) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Past the cap: the least recently seen series is written (if its count moved on) and forgotten. */
  private evictOldest(): void {
    const oldest = this.series.values().next().value!;
    this.writeSeries(oldest);
    this.series.delete(oldest.key);
  }

  /** Forgets the series `s` if it is still kept. */
  private forget(s: Series): void {
    if (this.series.get(s.key) === s) this.series.delete(s.key);
  }

  /** Writes the series counts due, forgets the series past their window and the buckets full again. */
  private refresh(): void {
    const now = this.scheduler.now();
    for (const [key, s] of this.series) {
      this.writeSeries(s);
      if (now - s.lastMs > this.o.seriesWindowMs) this.series.delete(key);
    }
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.atMs) / this.o.refillMs >= this.o.burst) this.buckets.delete(key);
  }

  /** Which Event API to write: asked of the server once, unless the options say. */
  private version(): Promise<'events.k8s.io/v1' | 'v1'> {
    this.apiVersion ??= this.o.api
      ? Promise.resolve(this.o.api)
      : this.o.client.request({ method: 'GET', path: '/apis/events.k8s.io/v1' }).then(
          () => 'events.k8s.io/v1' as const,
          (e: unknown) => {
            if (isNotFound(e)) return 'v1' as const;
            this.apiVersion = undefined; // asked again on the next write
            throw e;
          },
        );
    return this.apiVersion;
  }

  /** The events collection of `namespace`; one that is not a path segment fails the write (told to `onError`). */
  private path(v: string, namespace: string): string {
    return `${v === 'v1' ? '/api/v1' : '/apis/events.k8s.io/v1'}/namespaces/${pathSegment('namespace', namespace)}/events`;
  }

  /** `p` with its failure told to `failed` and `onError`, kept until settled (for `flush`). */
  private track(p: Promise<void>, failed: (e: unknown) => void): Promise<void> {
    const settled = p.catch((e: unknown) => {
      failed(e);
      (this.o.onError ?? ((error: unknown) => console.warn('event not recorded:', error)))(e);
    });
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
    return settled;
  }
}

/** Moves `key` to the end of `map` (the most recently used), with `value`. */
function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
}

/** `bytes` random bytes in hex. */
function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function checkOptions(options: EventRecorderOptions) {
  if (typeof options?.client?.request !== 'function') throw new InvalidOptionsError('createEventRecorder needs a client');
  for (const f of ['reportingController', 'reportingInstance'] as const)
    if (typeof options[f] !== 'string' || options[f] === '') throw new InvalidOptionsError(`createEventRecorder needs a ${f}`);
  checkScheduler(options.scheduler);
  return {
    ...options,
    seriesWindowMs: checkDuration('seriesWindowMs', options.seriesWindowMs, 6 * 60_000),
    seriesRefreshMs: checkDuration('seriesRefreshMs', options.seriesRefreshMs, 30_000, { min: 1, infinite: true }),
    burst: checkNumber('burst', options.burst, 25, 1),
    refillMs: checkDuration('refillMs', options.refillMs, 5 * 60_000, { min: 1 }),
    maxEntries: checkNumber('maxEntries', options.maxEntries, 4096, 1, { integer: true }),
  };
}
