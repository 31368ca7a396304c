/**
 * The watch events a stream holds while its connection is congested, or gathers for one batch,
 * coalesced by key: only the latest version of each object (an ADDED stays an ADDED with the latest
 * object), a DELETED kept (and an ADDED after it, the object re-created), an object added and
 * deleted while held not sent at all (its client never had it), one BOOKMARK, the newest (the one
 * that ends a watch's initial events is kept where it is). Each key moves to the end when it
 * changes, so the events go out in the order of their resource versions.
 */
import { INITIAL_EVENTS_END_ANNOTATION, type WatchEvent } from '../types.ts';

/** Events held for a congested stream, and their estimated size. */
export class PendingEvents {
  readonly #byKey = new Map<string, WatchEvent[]>();
  readonly #sizeOf: (event: WatchEvent) => number;
  #bytes = 0;
  #coalesced = 0;

  constructor(sizeOf: (event: WatchEvent) => number) {
    this.#sizeOf = sizeOf;
  }

  /** The estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many events were left out (replaced by a later version) since the last call. */
  takeCoalesced(): number {
    const n = this.#coalesced;
    this.#coalesced = 0;
    return n;
  }

  /** How many events are held. */
  get size(): number {
    let n = 0;
    for (const events of this.#byKey.values()) n += events.length;
    return n;
  }

  /** Holds `event`, merged with what is held for its key. */
  add(event: WatchEvent): void {
    const key = keyOf(event);
    const held = this.#byKey.get(key);
    const next = held ? merged(held, event) : [event];
    if (held) {
      this.#coalesced += held.length + 1 - next.length;
      for (const e of held) this.#bytes -= this.#sizeOf(e);
      this.#byKey.delete(key);
    }
    if (next.length === 0) return;
    for (const e of next) this.#bytes += this.#sizeOf(e);
    this.#byKey.set(key, next);
  }

  /** The events held, in order; holds nothing after. */
  take(): WatchEvent[] {
    const events = [...this.#byKey.values()].flat();
    this.#byKey.clear();
    this.#bytes = 0;
    return events;
  }
}

/**
 * `events` coalesced as `PendingEvents` holds them: the latest version of each object, in resource
 * version order. One batch of a stream: what its client must get to reach the same state.
 *
 * @example
 * coalesce([added(a, 1), modified(b, 2), modified(a, 3), added(c, 4), deleted(c, 5)]); // [MODIFIED b@2, ADDED a@3]
 */
export function coalesce(events: readonly WatchEvent[]): WatchEvent[] {
  if (events.length < 2) return [...events];
  const pending = new PendingEvents(() => 0);
  for (const event of events) pending.add(event);
  return pending.take();
}

/** The BOOKMARK that ends a watch's initial events: never merged with another, never moved. */
const INITIAL_END = '\u0000initial-events-end';

/** An object's key (namespace/name), or the one BOOKMARK's. */
function keyOf(event: WatchEvent): string {
  if (event.type === 'BOOKMARK' && event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') return INITIAL_END;
  if (event.type === 'BOOKMARK' || event.type === 'ERROR') return '\u0000bookmark';
  const m = event.object.metadata;
  return `${m?.namespace ?? ''}/${m?.name ?? ''}`;
}

/** What is held for a key once `event` comes after `held`. */
function merged(held: WatchEvent[], event: WatchEvent): WatchEvent[] {
  const last = held[held.length - 1];
  const before = held.slice(0, -1);
  switch (event.type) {
    case 'DELETED':
      // Added while held: the client never had it, and is told nothing of it.
      return last.type === 'ADDED' ? before : [event];
    case 'BOOKMARK':
      return [event];
    case 'ADDED':
      return last.type === 'DELETED' ? [...held, event] : [...before, event];
    default:
      if (last.type === 'ADDED') return [...before, { type: 'ADDED', object: event.object }];
      return last.type === 'DELETED' ? [...held, event] : [...before, event];
  }
}
