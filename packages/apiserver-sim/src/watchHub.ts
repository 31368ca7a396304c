/**
 * The registry of open watch streams, through which faults reach them (drop, stall, corrupt,
 * fail every, one seeded-random, or the next watch to open).
 */
import type { WatchSession } from './watchSession.ts';

/** Which open watches a fault hits. */
export type WatchTarget = 'all' | 'one' | 'next';

/** Every open watch, for faults and stats. */
export class WatchHub {
  readonly #sessions = new Map<number, WatchSession>();
  #nextId = 1;
  /** Faults waiting for the next watch to open. */
  readonly #pending: ((s: WatchSession) => void)[] = [];

  /** The id for a new session. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Registers a session; a pending `next` fault applies to it. */
  add(s: WatchSession): void {
    this.#sessions.set(s.id, s);
    const fault = this.#pending.shift();
    if (fault) queueMicrotask(() => fault(s));
  }

  /** Unregisters a session. */
  remove(s: WatchSession): void {
    this.#sessions.delete(s.id);
  }

  /** Open sessions in opening order. */
  sessions(): WatchSession[] {
    return [...this.#sessions.values()];
  }

  /** Applies `fn` to the watches `target` names; `pick` chooses one index for `one`. Returns how many were hit now. */
  apply(target: WatchTarget, pick: (n: number) => number, fn: (s: WatchSession) => void): number {
    if (target === 'next') {
      this.#pending.push(fn);
      return 0;
    }
    const open = this.sessions().filter((s) => !s.closed);
    const hit = target === 'one' ? (open.length > 0 ? [open[pick(open.length)]] : []) : open;
    for (const s of hit) fn(s);
    return hit.length;
  }

  /** Forgets pending `next` faults; returns how many there were. */
  clearPending(): number {
    const n = this.#pending.length;
    this.#pending.length = 0;
    return n;
  }
}
