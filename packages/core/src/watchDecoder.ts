/**
 * Decoding of the list/watch wire format, shared by every HTTP ListerWatcher: an incremental
 * line splitter for chunked watch streams and strict checks of watch events and list bodies.
 * A malformed line is a `WatchDecodeError`, never silently dropped.
 */
import { InvalidObjectError, WatchDecodeError } from './errors.ts';
import type { KubeObject, ListPage, WatchEvent } from './types.ts';

/**
 * Splits a stream of text chunks into complete lines; a line split across chunks is held until
 * its end arrives.
 *
 * @example
 * const split = lineSplitter();
 * split('{"type":"ADD'); // []
 * split('ED",...}\n');   // ['{"type":"ADDED",...}']
 */
export function lineSplitter(): (chunk: string) => string[] {
  let rest = '';
  return (chunk) => {
    const text = rest + chunk;
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    return lines.filter((l) => l.trim() !== '');
  };
}

/** Parses one watch line; throws `WatchDecodeError` for bad JSON or a shape that is not a watch event. */
export function decodeWatchLine<T extends KubeObject = KubeObject>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (cause) {
    throw new WatchDecodeError(line, (cause as Error).message, { cause });
  }
  const event = parsed as { type?: unknown; object?: unknown };
  if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || typeof event.object !== 'object' || event.object === null) {
    throw new WatchDecodeError(line, 'not a watch event: needs "type" and an "object"');
  }
  // Unknown types pass through: the reflector reports and skips them.
  return event as WatchEvent<T>;
}

/** Checks a decoded list body; throws `InvalidObjectError` when it has no `items` array. */
export function decodeListPage<T extends KubeObject = KubeObject>(body: unknown): ListPage<T> {
  const page = body as ListPage<T>;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.items)) throw new InvalidObjectError('list response has no items array', body);
  return page;
}
