/**
 * When each key of a `WorkQueue` may next be handed out, and why it waits: a delay (a requeue after
 * a while, a rate-limited retry, a debounce) ends by adding the key; a hold keeps it from being
 * handed out at all until it is released or times out, putting off the adds that come meanwhile.
 * One owner of a key's timers, so that they cannot disagree.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleAfter } from '../time/longTimer.ts';

/**
 * Why a key waits: `requeueAfter` (`addAfter`), `backoff` (`addRateLimited`), `debounce`
 * (`addDebounced`: each add starts its quiet time again), `hold` (`hold`: not handed out until
 * released or timed out).
 */
export type WaitReason = 'requeueAfter' | 'backoff' | 'debounce' | 'hold';

/** When a key may next be handed out, and why not before. */
export interface KeyWait {
  /** Why it waits. */
  readonly reason: WaitReason;
  /** When the wait ends at the latest, on the queue's scheduler clock (a hold may be released before). */
  readonly at: number;
}

/** What the holder of a key is told: each add the hold puts off (the first only, per hold), and how it ended. */
export interface HoldHandlers {
  /** The hold put off its first add: a worker would have taken the key now. */
  putOff?(): void;
  /** The hold ended. */
  ended?(end: HoldEnd): void;
}

/** How a hold ended: released, or timed out; with when its first put-off add came, if one did. */
export interface HoldEnd {
  /** `released` by `release`, or `expired` after its timeout. */
  readonly how: 'released' | 'expired';
  /** When the first add put off by the hold came (scheduler clock); undefined: none came. */
  readonly putOffAt: number | undefined;
}

interface Delay {
  at: number;
  priority: number;
  reason: Exclude<WaitReason, 'hold'>;
  timer: Subscription;
}

interface Hold {
  at: number;
  timer: Subscription;
  /** The highest priority of the adds put off; undefined: none. */
  pending: number | undefined;
  putOffAt: number | undefined;
  handlers: HoldHandlers | undefined;
}

/** The delays and holds of one queue's keys; `add` queues a key whose delay or hold ended. */
export class KeyWaits<K> {
  readonly #delays = new Map<K, Delay>();
  readonly #holds = new Map<K, Hold>();
  readonly #scheduler: SchedulerLike;
  readonly #add: (key: K, priority: number) => void;

  constructor(scheduler: SchedulerLike, add: (key: K, priority: number) => void) {
    this.#scheduler = scheduler;
    this.#add = add;
  }

  /** Keys waiting for a delay. */
  get delayed(): number {
    return this.#delays.size;
  }

  /** Keys held. */
  get held(): number {
    return this.#holds.size;
  }

  /** The wait of `key`: its hold, else its delay; undefined when it waits for neither. */
  waitOf(key: K): KeyWait | undefined {
    const hold = this.#holds.get(key);
    if (hold !== undefined) return { reason: 'hold', at: hold.at };
    const delay = this.#delays.get(key);
    return delay === undefined ? undefined : { reason: delay.reason, at: delay.at };
  }

  /**
   * Adds `key` after `ms` (> 0). A debounce starts a pending debounce again (later); any other delay
   * keeps the earliest of the key's delays. Merged delays keep the highest priority.
   */
  delay(key: K, ms: number, priority: number, reason: Delay['reason']): void {
    const at = this.#scheduler.now() + ms;
    const pending = this.#delays.get(key);
    if (pending !== undefined && pending.at <= at && !(reason === 'debounce' && pending.reason === 'debounce')) {
      pending.priority = Math.max(pending.priority, priority);
      return;
    }
    pending?.timer.unsubscribe();
    const entry: Delay = { at, priority: Math.max(pending?.priority ?? priority, priority), reason, timer: undefined as never };
    // Any length: a delay past a JavaScript timer's 24.8 days is split, never fired at once.
    entry.timer = scheduleAfter(this.#scheduler, ms, () => {
      this.#delays.delete(key);
      this.#add(key, entry.priority); // later merges may have raised it
    });
    this.#delays.set(key, entry);
  }

  /**
   * Holds `key` until `release(key)` or `timeoutMs`; `handlers` are told of its first put-off
   * add and how it ended. A key held already keeps its hold (and its timeout).
   */
  hold(key: K, timeoutMs: number, handlers?: HoldHandlers): void {
    if (this.#holds.has(key)) return;
    const at = this.#scheduler.now() + timeoutMs;
    const timer = scheduleAfter(this.#scheduler, timeoutMs, () => this.#end(key, 'expired'));
    this.#holds.set(key, { at, timer, pending: undefined, putOffAt: undefined, handlers });
  }

  /** True when `key` is held: an add of it is put off (and remembered) by `putOff`. */
  isHeld(key: K): boolean {
    return this.#holds.size > 0 && this.#holds.has(key);
  }

  /** An add of the held `key` at `priority`: queued once the hold ends. */
  putOff(key: K, priority: number): void {
    const hold = this.#holds.get(key)!;
    hold.pending = Math.max(hold.pending ?? priority, priority);
    if (hold.putOffAt !== undefined) return;
    hold.putOffAt = this.#scheduler.now();
    hold.handlers?.putOff?.();
  }

  /** Ends the hold of `key` (nothing when it is not held); an add it put off is made now. */
  release(key: K): void {
    this.#end(key, 'released');
  }

  /** Adds every debounced key now (a draining shutdown reconciles what was heard). */
  flushDebounced(): void {
    for (const [key, d] of this.#delays)
      if (d.reason === 'debounce') {
        d.timer.unsubscribe();
        this.#delays.delete(key);
        this.#add(key, d.priority);
      }
  }

  /** Cancels every delay and hold; the adds they put off are dropped. */
  clear(): void {
    for (const { timer } of this.#delays.values()) timer.unsubscribe();
    for (const { timer } of this.#holds.values()) timer.unsubscribe();
    this.#delays.clear();
    this.#holds.clear();
  }

  #end(key: K, how: HoldEnd['how']): void {
    const hold = this.#holds.get(key);
    if (hold === undefined) return;
    this.#holds.delete(key);
    hold.timer.unsubscribe();
    hold.handlers?.ended?.({ how, putOffAt: hold.putOffAt });
    if (hold.pending !== undefined) this.#add(key, hold.pending);
  }
}
