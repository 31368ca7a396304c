/**
 * An event recorder as client-go's `tools/events` broadcaster: events.k8s.io/v1 Events (core/v1
 * where the server has no events.k8s.io), the repeats of one event within a window counted in its
 * `series` instead of new Events, and a token bucket per object against event storms.
 */
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';
import { checkNumber, checkScheduler, pathSegment } from '@rxinformer/core/http';
import { asyncScheduler, interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { ApiClient } from './apiClient.ts';
import { isNotFound } from './apiError.ts';
import { eventCore, eventKey, eventV1, referenceTo, refKey, seriesCore, seriesV1, type EventInfo, type EventSource } from './eventBody.ts';

/** Options of `createEventRecorder`. */
export interface EventRecorderOptions extends EventSource {
  /** Where the Events are written. */
  client: ApiClient;
  /** A repeat within this many ms of the last occurrence joins its series. Default 6 minutes (client-go's). */
  seriesWindowMs?: number;
  /** Repeats after the first are written (as a series count) at most this often. Default 30 s. */
  seriesRefreshMs?: number;
  /** Events of one object allowed at once. Default 25 (client-go's). */
  burst?: number;
  /** One more event of an object allowed every this many ms. Default 5 minutes (client-go's). */
  refillMs?: number;
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

interface Series {
  namespace: string;
  name: string;
  count: number;
  written: number;
  lastMs: number;
  write: Promise<unknown>;
}

/**
 * Creates a recorder. The first occurrence of an event (same object, action, reason, type, note
 * and related object) creates an Event; a repeat within `seriesWindowMs` of the previous one counts
 * in its `series`: the second is written at once, later ones every `seriesRefreshMs` (and on `flush`).
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
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly tick: Subscription;
  private apiVersion?: Promise<'events.k8s.io/v1' | 'v1'>;
  private seq = 0;
  private stopped = false;

  private readonly o: Resolved;

  constructor(o: Resolved) {
    this.o = o;
    this.scheduler = o.scheduler ?? asyncScheduler;
    this.tick = interval(o.seriesRefreshMs, this.scheduler).subscribe(() => this.refresh());
  }

  event(regarding: KubeObject, info: EventInfo): void {
    if (this.stopped) return;
    const now = this.scheduler.now();
    const ref = referenceTo(regarding);
    if (!this.allowed(refKey(ref), now)) {
      this.dropped++;
      return;
    }
    const key = eventKey(this.o, ref, info);
    const s = this.series.get(key);
    if (s && now - s.lastMs <= this.o.seriesWindowMs) {
      s.count++;
      s.lastMs = now;
      if (s.count === 2) this.writeSeries(s);
      return;
    }
    const meta = { namespace: ref.namespace || 'default', name: `${ref.name ?? 'object'}.${now.toString(16)}${(this.seq++).toString(16)}` };
    const write = this.version().then((v) => {
      const body = v === 'v1' ? eventCore(meta, this.o, ref, info, now) : eventV1(meta, this.o, ref, info, now);
      return this.o.client.request({ method: 'POST', path: this.path(v, meta.namespace), body });
    });
    this.series.set(key, { ...meta, count: 1, written: 1, lastMs: now, write: this.track(write) });
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

  /** Writes the series count of `s` when it moved on since the last write, after the writes before it. */
  private writeSeries(s: Series): void {
    if (s.count === s.written) return;
    const { count, lastMs } = s;
    s.written = count;
    const write = s.write.then(async () => {
      const v = await this.version();
      const body = v === 'v1' ? seriesCore(count, lastMs) : seriesV1(count, lastMs);
      const path = `${this.path(v, s.namespace)}/${pathSegment('name', s.name)}`;
      await this.o.client.request({ method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });
    });
    s.write = this.track(write);
  }

  /** Takes a token of `key`'s bucket, if it has one. */
  private allowed(key: string, now: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.o.burst, atMs: now };
    b.tokens = Math.min(this.o.burst, b.tokens + (now - b.atMs) / this.o.refillMs);
    b.atMs = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
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

  /** `p` with its failure told to `onError`, kept until settled (for `flush`). */
  private track(p: Promise<unknown>): Promise<unknown> {
    const settled = p.catch(this.o.onError ?? ((e: unknown) => console.warn('event not recorded:', e)));
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
    return settled;
  }
}

function checkOptions(options: EventRecorderOptions) {
  if (typeof options?.client?.request !== 'function') throw new InvalidOptionsError('createEventRecorder needs a client');
  for (const f of ['reportingController', 'reportingInstance'] as const)
    if (typeof options[f] !== 'string' || options[f] === '') throw new InvalidOptionsError(`createEventRecorder needs a ${f}`);
  checkScheduler(options.scheduler);
  return {
    ...options,
    seriesWindowMs: checkNumber('seriesWindowMs', options.seriesWindowMs, 6 * 60_000, 0),
    seriesRefreshMs: checkNumber('seriesRefreshMs', options.seriesRefreshMs, 30_000, 1),
    burst: checkNumber('burst', options.burst, 25, 1),
    refillMs: checkNumber('refillMs', options.refillMs, 5 * 60_000, 1),
  };
}
