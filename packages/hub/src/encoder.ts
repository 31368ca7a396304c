/**
 * JSON text frames for the channel's messages, each object serialized once for every connection:
 * the informers' objects are immutable and shared, so their JSON is kept in a `WeakMap` and an
 * `events` or `page` message is assembled from it. 1,000 clients receiving one event cost one
 * `JSON.stringify` of its object, not 1,000.
 */
import type { KubeObject, WatchEvent } from '@rxinformer/core';
import type { ServerMessage } from '@rxinformer/core/channel';

/** Encodes server messages as JSON text, objects' JSON cached. */
export class MessageEncoder {
  readonly #json = new WeakMap<object, string>();

  /** The JSON of `object` (serialized on first use). */
  objectJson(object: KubeObject): string {
    let text = this.#json.get(object);
    if (text === undefined) {
      text = JSON.stringify(object);
      this.#json.set(object, text);
    }
    return text;
  }

  /** The bytes (UTF-16 units: close enough for a budget) an event takes once sent. */
  sizeOf(event: WatchEvent): number {
    return this.objectJson(event.object as KubeObject).length + 32;
  }

  /** `message` as JSON text. */
  encode(message: ServerMessage): string {
    if (message.t === 'events') {
      const events = message.events.map((e) => `{"type":${JSON.stringify(e.type)},"object":${this.objectJson(e.object as KubeObject)}}`);
      return `{"t":"events","id":${JSON.stringify(message.id)},"events":[${events.join(',')}]}`;
    }
    if (message.t === 'page') {
      const { items, ...rest } = message.page;
      const head = JSON.stringify(rest);
      const list = `"items":[${items.map((o) => this.objectJson(o)).join(',')}]`;
      const page = head === '{}' ? `{${list}}` : `${head.slice(0, -1)},${list}}`;
      return `{"t":"page","id":${JSON.stringify(message.id)},"page":${page}}`;
    }
    return JSON.stringify(message);
  }
}
