import { describe, expect, it } from '@jest/globals';
import { decodeUtf8, fixed32, fixed64, float64, readFields, readPackedVarints, readVarint, WireFormatError } from './protobufWire.ts';
import { bytes, int, varint } from '@rxinformer/testing';

describe('readFields', () => {
  it('should read varint, 64-bit, length-delimited and 32-bit fields in order', () => {
    const f64 = Buffer.alloc(8);
    f64.writeDoubleLE(1.5);
    const f32 = Buffer.alloc(4);
    f32.writeInt32LE(-7);
    const buf = Uint8Array.from([...int(1, 300), ...varint((2 << 3) | 1), ...f64, ...bytes(3, 'hé'), ...varint((4 << 3) | 5), ...f32]);
    const fields = [...readFields(buf)];
    expect(fields.map((f) => [f.num, f.wire])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 5],
    ]);
    expect(fields[0].value).toBe(300n);
    expect(float64(fields[1].value as Uint8Array)).toBe(1.5);
    expect(decodeUtf8(fields[2].value as Uint8Array)).toBe('hé');
    expect(fixed32(fields[3].value as Uint8Array)).toBe(-7);
  });

  it('should refuse truncated varints and lengths, groups and field number 0', () => {
    expect(() => [...readFields(Uint8Array.of(0x08, 0x80))]).toThrow(WireFormatError);
    expect(() => [...readFields(Uint8Array.from(bytes(1, 'abc')).subarray(0, 3))]).toThrow('runs past the end');
    expect(() => [...readFields(Uint8Array.of(0x0b))]).toThrow('unsupported wire type 3');
    expect(() => [...readFields(Uint8Array.of(0x00, 0x00))]).toThrow('field number 0');
    expect(() => readVarint(Uint8Array.of(...Array(10).fill(0xff), 0x01), 0)).toThrow('longer than 10 bytes');
  });
});

describe('readPackedVarints', () => {
  it('should read a run of varints, including 10-byte negative ones', () => {
    expect(readPackedVarints(Uint8Array.from([...varint(1), ...varint(150), ...varint(-1)])).map((v) => BigInt.asIntN(64, v))).toEqual([
      1n,
      150n,
      -1n,
    ]);
  });
});

describe('fixed64', () => {
  it('should read a little-endian signed 64-bit value', () => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(-2n);
    expect(fixed64(b)).toBe(-2n);
  });
});

describe('decodeUtf8', () => {
  it('should refuse invalid UTF-8', () => {
    expect(() => decodeUtf8(Uint8Array.of(0xc3))).toThrow('not valid UTF-8');
  });
});
