/**
 * A minimal reader of the protocol buffers wire format: varints, length-delimited fields and
 * fixed 32/64-bit fields, enough to walk the messages Kubernetes clients send.
 */

/** The four wire types a proto2/proto3 message uses (groups, 3 and 4, are refused). */
export type WireType = 0 | 1 | 2 | 5;

/** One field read from a message: its number, wire type and raw value. */
export type WireField =
  { num: number; wire: 0; value: bigint } | { num: number; wire: 1 | 5; value: Uint8Array } | { num: number; wire: 2; value: Uint8Array };

/**
 * A body that is not valid protobuf (truncated, a bad tag or wire type). Carries what went wrong
 * in `message`; the decoder turns it into a 415 Status.
 */
export class WireFormatError extends Error {
  /** Always `WireFormatError`. */
  override readonly name = 'WireFormatError';
}

/**
 * Reads the fields of one message in wire order.
 *
 * @example
 * for (const f of readFields(bytes)) if (f.num === 1 && f.wire === 2) console.log(decodeUtf8(f.value));
 */
export function* readFields(buf: Uint8Array): Generator<WireField> {
  let pos = 0;
  const varint = (): bigint => {
    const read = readVarint(buf, pos);
    pos = read.next;
    return read.value;
  };
  const take = (n: number): Uint8Array => {
    if (n < 0 || pos + n > buf.length) throw new WireFormatError(`field of ${n} bytes runs past the end of its message`);
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const tag = varint();
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (num === 0) throw new WireFormatError('field number 0');
    switch (wire) {
      case 0:
        yield { num, wire, value: varint() };
        break;
      case 1:
        yield { num, wire, value: take(8) };
        break;
      case 2:
        yield { num, wire, value: take(Number(varint())) };
        break;
      case 5:
        yield { num, wire, value: take(4) };
        break;
      default:
        throw new WireFormatError(`unsupported wire type ${wire} of field ${num}`);
    }
  }
}

/** Reads the varint at `pos`: its unsigned value and the position after it. */
export function readVarint(buf: Uint8Array, pos: number): { value: bigint; next: number } {
  let value = 0n;
  for (let shift = 0n, at = pos; shift < 70n; shift += 7n) {
    if (at >= buf.length) throw new WireFormatError('truncated varint');
    const b = buf[at++];
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return { value, next: at };
  }
  throw new WireFormatError('varint longer than 10 bytes');
}

/** The varints of a packed repeated field's payload. */
export function readPackedVarints(buf: Uint8Array): bigint[] {
  const out: bigint[] = [];
  for (let pos = 0; pos < buf.length;) {
    const read = readVarint(buf, pos);
    out.push(read.value);
    pos = read.next;
  }
  return out;
}

/** A fixed 64-bit field as a signed integer (sfixed64/fixed64 values in safe-integer range). */
export function fixed64(bytes: Uint8Array): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0, true);
}

/** A fixed 32-bit field as a signed integer. */
export function fixed32(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
}

/** A `double` field. */
export function float64(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A length-delimited field as UTF-8 text ({@link WireFormatError} for invalid UTF-8). */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new WireFormatError('string field is not valid UTF-8');
  }
}
