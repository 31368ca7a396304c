/**
 * The protocol buffers wire format read straight off a Node Buffer: varints (negative int64s
 * included), lengths checked against the buffer, strings, skipped unknown fields.
 */
import { ProtobufDecodeError } from './errors.ts';

/** A byte reader over one buffer (a Node Buffer: `toString` decodes its strings). */
export interface Reader {
  buf: Buffer;
  pos: number;
}

/** A Uint8Array as a Buffer over the same bytes. */
export function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** An unsigned varint up to 2^53 (a longer one, i.e. a negative int64, through `int64`). */
export function varint(r: Reader): number {
  const buf = r.buf;
  let b = buf[r.pos++];
  if (b < 0x80) return b;
  let value = b & 0x7f;
  let mul = 0x80;
  for (let i = 1; i < 10; i++) {
    if (r.pos >= buf.length) throw truncated();
    b = buf[r.pos++];
    value += (b & 0x7f) * mul;
    if (b < 0x80) return value;
    mul *= 0x80;
  }
  throw new ProtobufDecodeError('BadVarint', 'a varint longer than 10 bytes');
}

/** An int64 varint, negative ones (ten bytes, two's complement) included. */
export function int64(r: Reader): number {
  const at = r.pos;
  const v = varint(r);
  if (r.pos - at < 10) return v;
  let big = 0n;
  for (let i = r.pos - 1; i >= at; i--) big = (big << 7n) | BigInt(r.buf[i] & 0x7f);
  return Number(BigInt.asIntN(64, big));
}

export function int32(r: Reader): number {
  return int64(r) | 0;
}

/** Reads a length and returns where its field ends, checked against the buffer. */
export function lengthEnd(r: Reader): number {
  if (r.pos >= r.buf.length) throw truncated();
  const n = varint(r);
  const end = r.pos + n;
  if (end > r.buf.length) throw truncated();
  return end;
}

export function string(r: Reader): string {
  const end = lengthEnd(r);
  let s = utf8(r.buf, r.pos, end);
  if (end - r.pos <= 64) {
    // Short values repeat across objects (phases, images, names of nodes, namespaces): one copy
    // each, as JSON.parse's internalized strings are.
    const known = seen.get(s);
    if (known !== undefined) s = known;
    else {
      if (seen.size >= 65_536) seen.clear();
      seen.set(s, s);
    }
  }
  r.pos = end;
  return s;
}

const seen = new Map<string, string>();

/** `buf.toString('utf8', start, end)` without its argument checks (Node's own `utf8Slice` where there is one). */
export const utf8: (buf: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (buf, start, end) => (buf as unknown as { utf8Slice(s: number, e: number): string }).utf8Slice(start, end)
    : (buf, start, end) => buf.toString('utf8', start, end);

/** Skips an unknown field (a newer server's), by its wire type. */
export function skip(r: Reader, tag: number, end: number): void {
  if (tag >>> 3 === 0) throw new ProtobufDecodeError('BadTag', 'field number 0');
  switch (tag & 7) {
    case 0:
      varint(r);
      break;
    case 1:
      r.pos += 8;
      break;
    case 2:
      r.pos = lengthEnd(r);
      break;
    case 5:
      r.pos += 4;
      break;
    default:
      throw new ProtobufDecodeError('BadWireType', `wire type ${tag & 7} (field ${tag >>> 3})`);
  }
  if (r.pos > end) throw truncated();
}

export function truncated(): ProtobufDecodeError {
  return new ProtobufDecodeError('Truncated', 'a field runs past the end of its message');
}
