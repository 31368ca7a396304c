/**
 * A test-only protobuf encoder: just enough to build request bodies field by field, so decoder
 * tests can set values kubectl's generators never do. Each helper returns the bytes of one field.
 */

/** A varint (negative numbers as 64-bit two's complement, like int32/int64 fields). */
export function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v !== 0n ? low | 0x80 : low);
  } while (v !== 0n);
  return out;
}

/** A varint field: `int32`, `int64` or `bool`. */
export function int(num: number, n: number | bigint | boolean): number[] {
  return [...varint((num << 3) | 0), ...varint(typeof n === 'boolean' ? Number(n) : n)];
}

/** A length-delimited field holding text or bytes. */
export function bytes(num: number, value: string | Uint8Array | number[]): number[] {
  const b = typeof value === 'string' ? [...new TextEncoder().encode(value)] : [...value];
  return [...varint((num << 3) | 2), ...varint(b.length), ...b];
}

/** A nested message field made of the given fields. */
export function msg(num: number, ...fields: number[][]): number[] {
  return bytes(num, fields.flat());
}

/** A map entry field (`map<string, …>` is a repeated message of key 1 and value 2). */
export function entry(num: number, key: string, value: number[]): number[] {
  return msg(num, bytes(1, key), value);
}

/** A whole body: the `k8s\x00` magic and a runtime.Unknown envelope around the message `raw`. */
export function envelope(apiVersion: string, kind: string, raw: number[][], extra: number[][] = []): Uint8Array {
  return Uint8Array.from([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...msg(1, bytes(1, apiVersion), bytes(2, kind)),
    ...bytes(2, raw.flat()),
    ...extra.flat(),
  ]);
}
