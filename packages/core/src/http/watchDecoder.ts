/**
 * Decoding of the list/watch wire format, shared by every HTTP ListerWatcher: an incremental
 * decoder for chunked watch streams (text or bytes, lines and multi-byte characters split across
 * chunks) and strict checks of watch events and list bodies. A malformed line is a
 * `WatchDecodeError`, never silently dropped; a line past the size limit a `ResponseTooLargeError`.
 */
import { InvalidObjectError, ResponseTooLargeError, WatchDecodeError, jsonErrorDetail } from '../errors.ts';
import type { KubeObject, ListPage, WatchEvent } from '../types.ts';

/**
 * Splits a stream of text chunks into complete, non-blank lines; a line split across chunks is
 * held until its end arrives.
 *
 * @example
 * const split = lineSplitter();
 * split('{"type":"ADD'); // []
 * split('ED",...}\n');   // ['{"type":"ADDED",...}']
 */
export function lineSplitter(): (chunk: string) => string[] {
  let rest = '';
  return (chunk) => {
    const lines: string[] = [];
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      rest += chunk;
      return lines;
    }
    // The first line completes what the previous chunks left over.
    pushLine(lines, rest + chunk.slice(0, nl));
    rest = '';
    start = nl + 1;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      pushLine(lines, chunk.slice(start, nl));
      start = nl + 1;
    }
    rest = chunk.slice(start);
    return lines;
  };
}

function pushLine(lines: string[], line: string): void {
  // Blank lines (and a `\r` left by CRLF) carry nothing; everything else is decoded or refused.
  const end = line.endsWith('\r') ? line.length - 1 : line.length;
  const trimmed = end === line.length ? line : line.slice(0, end);
  if (trimmed.trim() !== '') lines.push(trimmed);
}

/** An incremental watch-stream decoder: feed it chunks, it emits whole events. */
export interface WatchDecoder<T extends KubeObject = KubeObject> {
  /**
   * Decodes the complete lines of `chunk` (text, or UTF-8 bytes: a character split across byte
   * chunks is held too) and emits each event in order; stops early when `emit` returns false, and
   * returns false then. A malformed line throws `WatchDecodeError` after every event before it
   * was emitted: end the stream there.
   */
  push(chunk: string | Uint8Array, emit: (event: WatchEvent<T>) => boolean | void): boolean;
  /** The stream ended: throws `WatchDecodeError` if an unterminated, non-blank line is left. */
  end(): void;
}

/**
 * The default longest watch line, 16 MiB: one line holds one object, and the API server refuses
 * objects over ~1.5 MiB (etcd's request limit; 3 MiB for a request body), so this leaves room for
 * JSON's expansion of a large object while bounding what a broken stream can make us hold. (Go
 * clients cap a watch frame at the same size.)
 */
export const DEFAULT_MAX_WATCH_LINE_BYTES = 16 * 1024 * 1024;

/** Options of `createWatchDecoder`. */
export interface WatchDecoderOptions {
  /**
   * The longest line accepted, in bytes (in UTF-16 code units for text chunks; a `\r` before the
   * newline counts); a longer one throws `ResponseTooLargeError` as soon as its first
   * `maxLineBytes + 1` bytes have arrived, before they are decoded or kept. Default
   * `DEFAULT_MAX_WATCH_LINE_BYTES` (16 MiB).
   */
  maxLineBytes?: number;
}

/**
 * Creates a decoder for one watch stream. Each event is checked with `decodeWatchLine`.
 *
 * Caveat: a throw leaves the decoder in an undefined state; end the stream on the first error.
 *
 * @example
 * const decoder = createWatchDecoder<Wire<V1Pod>>({ maxLineBytes: 4 * 1024 * 1024 });
 * for await (const chunk of body) decoder.push(chunk, (event) => subscriber.next(event));
 * decoder.end();
 */
export function createWatchDecoder<T extends KubeObject = KubeObject>(options: WatchDecoderOptions = {}): WatchDecoder<T> {
  const split = lineSplitter();
  const utf8 = utf8ChunkDecoder();
  const limit = lineLimit(options.maxLineBytes ?? DEFAULT_MAX_WATCH_LINE_BYTES);
  return {
    push(chunk, emit) {
      limit(chunk);
      const text = typeof chunk === 'string' ? chunk : utf8.decode(chunk);
      for (const line of split(text)) {
        if (emit(decodeWatchLine<T>(line)) === false) return false;
      }
      return true;
    },
    end() {
      utf8.end();
      const left = split('\n');
      if (left.length > 0) throw new WatchDecodeError(left[0], 'the stream ended inside a line');
    },
  };
}

/**
 * A check of the line lengths of a stream, chunk by chunk, before anything is decoded or kept:
 * throws `ResponseTooLargeError` once a line (terminated or not) is longer than `max`. Bytes are
 * counted in byte chunks (a newline byte never occurs inside a UTF-8 character), code units in text.
 */
function lineLimit(max: number): (chunk: string | Uint8Array) => void {
  let open = 0; // the length of the line not terminated yet
  const tooLong = (): never => {
    throw new ResponseTooLargeError('watchLine', max);
  };
  return (chunk) => {
    const text = typeof chunk === 'string';
    const next = (from: number): number => (text ? chunk.indexOf('\n', from) : chunk.indexOf(0x0a, from));
    const first = next(0);
    if (first < 0) {
      open += chunk.length;
      if (open > max) tooLong();
      return;
    }
    if (open + first > max) tooLong();
    // Lines wholly inside the chunk can only be too long in a chunk longer than the limit.
    let end = first;
    if (chunk.length > max) {
      for (let nl = next(end + 1); nl >= 0; end = nl, nl = next(end + 1)) if (nl - end - 1 > max) tooLong();
    } else {
      end = text ? chunk.lastIndexOf('\n') : chunk.lastIndexOf(0x0a);
    }
    open = chunk.length - end - 1;
    if (open > max) tooLong();
  };
}

/**
 * Strict UTF-8 decoding of a byte stream chunk by chunk. Each chunk is decoded whole up to its
 * last complete character (faster than a streaming `TextDecoder` on the all-ASCII chunks most
 * API objects make; docs/benchmarks.md has the figures); the 1–3 bytes
 * of a character cut by the chunk's end wait for the next one. Invalid UTF-8 throws
 * `WatchDecodeError`; a leading byte-order mark is dropped, as `TextDecoder` does.
 */
function utf8ChunkDecoder(): { decode(bytes: Uint8Array): string; end(): void } {
  let strict: TextDecoder | undefined;
  let carry: Uint8Array | undefined;
  let first = true;
  const decodeWhole = (bytes: Uint8Array): string => {
    strict ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    try {
      return strict.decode(bytes);
    } catch (cause) {
      throw new WatchDecodeError('<bytes>', 'invalid UTF-8', { cause });
    }
  };
  return {
    decode(chunk) {
      let bytes = chunk;
      let head = '';
      if (carry !== undefined) {
        // Complete the character the previous chunk cut, from this chunk's first bytes.
        const need = Math.min(sequenceLength(carry[0]) - carry.length, bytes.length);
        const joined = new Uint8Array(carry.length + need);
        joined.set(carry);
        joined.set(bytes.subarray(0, need), carry.length);
        bytes = bytes.subarray(need);
        if (joined.length < sequenceLength(joined[0])) {
          carry = joined;
          return '';
        }
        carry = undefined;
        head = decodeWhole(joined);
      }
      const end = completeLength(bytes);
      if (end < bytes.length) carry = bytes.slice(end);
      let text = head + decodeWhole(end === bytes.length ? bytes : bytes.subarray(0, end));
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      return text;
    },
    end() {
      if (carry !== undefined) throw new WatchDecodeError('<bytes>', 'the stream ended inside a UTF-8 character');
    },
  };
}

/** Bytes in the UTF-8 sequence `lead` starts (1 for anything that cannot start one: the decoder refuses it). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc0 && lead <= 0xdf) return 2;
  return 1;
}

/** The length of `bytes` without a character cut at its end. */
function completeLength(bytes: Uint8Array): number {
  // The last character starts in the last 4 bytes: find its lead byte (not 10xxxxxx).
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 4; i--) {
    if ((bytes[i] & 0xc0) !== 0x80) return i + sequenceLength(bytes[i]) > bytes.length ? i : bytes.length;
  }
  return bytes.length; // only continuation bytes: invalid, left to the decoder to refuse
}

/**
 * Parses one watch line; throws `WatchDecodeError` for bad JSON or a shape that is not a watch
 * event (`type` a string, `object` an object). Unknown `type`s pass: the reflector reports them.
 *
 * @example
 * decodeWatchLine<Wire<V1Pod>>('{"type":"ADDED","object":{"metadata":{"name":"a"}}}'); // { type: 'ADDED', object: {…} }
 */
export function decodeWatchLine<T extends KubeObject = KubeObject>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (cause) {
    throw new WatchDecodeError(line, jsonErrorDetail(cause), { cause });
  }
  const event = parsed as { type?: unknown; object?: unknown };
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.type !== 'string' ||
    typeof event.object !== 'object' ||
    event.object === null ||
    Array.isArray(event.object)
  ) {
    throw new WatchDecodeError(line, 'not a watch event: needs "type" and an "object"');
  }
  return event as WatchEvent<T>;
}

/**
 * Checks a decoded list body: an object with an `items` array of objects and, if present, a
 * `metadata` object. Throws `InvalidObjectError` otherwise.
 *
 * A typed list (`"kind": "PodList"`, as kube-apiserver writes every built-in list in JSON) leaves
 * out its items' `apiVersion` and `kind`, which a watch event's object carries: an item that has
 * neither gets the list's `apiVersion` and its kind without `List`, so that a cached object has
 * the same shape whether a list or a watch brought it.
 */
export function decodeListPage<T extends KubeObject = KubeObject>(body: unknown): ListPage<T> {
  const page = body as ListPage<T>;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.items))
    throw new InvalidObjectError('list response has no items array', body);
  if (page.metadata !== undefined && (typeof page.metadata !== 'object' || page.metadata === null))
    throw new InvalidObjectError('list response metadata is not an object', body);
  const { apiVersion, kind } = page;
  const itemKind =
    typeof apiVersion === 'string' && apiVersion && typeof kind === 'string' && kind.length > 4 && kind.endsWith('List')
      ? kind.slice(0, -4)
      : undefined;
  const items = page.items;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== 'object' || item === null) throw new InvalidObjectError(`list item ${i} is not an object`, item);
    if (itemKind !== undefined && item.apiVersion === undefined && item.kind === undefined) {
      item.apiVersion = apiVersion;
      item.kind = itemKind;
    }
  }
  return page;
}

/**
 * Parses a list response body's text and checks it; throws `InvalidObjectError` for non-JSON.
 *
 * @example
 * const page = parseListBody<Wire<V1Pod>>(await readBody(response, path, 'listBody')); // page.items, page.metadata?.continue
 */
export function parseListBody<T extends KubeObject = KubeObject>(text: string): ListPage<T> {
  return decodeListPage<T>(parseListJson(text));
}

/** A list response body's text parsed, unchecked; throws `InvalidObjectError` for non-JSON. */
export function parseListJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidObjectError(`list response is not JSON: ${jsonErrorDetail(cause)}`, text.slice(0, 200), { cause });
  }
}
