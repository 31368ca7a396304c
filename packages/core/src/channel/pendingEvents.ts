/**
 * The watch events a stream holds while its connection is congested, coalesced by key: only the
 * latest version of each object (an ADDED stays an ADDED with the latest object), a DELETED kept
 * (and an ADDED after it, the object re-created), one BOOKMARK, the newest. Each key moves to the
 * end when it changes, so the events go out in the order of their resource versions.
 */
import type { WatchEvent } from '../types.ts';

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

/** An object's key (namespace/name), or the one BOOKMARK's. */
function keyOf(event: WatchEvent): string {
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
    case 'BOOKMARK':
      return [event];
    case 'ADDED':
      return last.type === 'DELETED' ? [...held, event] : [...before, event];
    default:
      if (last.type === 'ADDED') return [...before, { type: 'ADDED', object: event.object }];
      return last.type === 'DELETED' ? [...held, event] : [...before, event];
  }
}
