/**
 * Decodes Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) into the plain objects the
 * JSON path gives: JSON field names, times as the RFC 3339 strings the server writes,
 * quantities as strings, int-or-string as a number or a string, `[]byte` as base64, and every
 * field left out or written as `null` exactly as Go's `encoding/json` does for the same object
 * (omitempty, omitzero, pointers, nil slices and maps). The schema is `schema.generated.ts`.
 */
import { PROTOBUF_GROUP_VERSIONS } from './schema.generated.ts';
import { ProtobufDecodeError } from './errors.ts';
import { compile, K, F, type Field, type Message } from './schema.ts';
import { asBuffer, int32, int64, lengthEnd, skip, string, truncated, utf8, varint, type Reader } from './reader.ts';

/** The four bytes every Kubernetes protobuf body starts with: `k8s\0`. */
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** The object of a whole protobuf body (`k8s\0`, runtime.Unknown, the object), with its `apiVersion` and `kind`. */
export function decodeObjectBody(body: Uint8Array): Record<string, unknown> {
  const buf = asBuffer(body);
  for (let i = 0; i < 4; i++) if (buf[i] !== MAGIC[i]) throw new ProtobufDecodeError('NoMagic', 'the body does not start with k8s\\0');
  const r: Reader = { buf, pos: 4 };
  let apiVersion = '';
  let kind = '';
  let raw: [number, number] | undefined;
  while (r.pos < buf.length) {
    const tag = varint(r);
    if (tag === 0x0a) {
      const end = lengthEnd(r);
      while (r.pos < end) {
        const t = varint(r);
        if (t === 0x0a) apiVersion = string(r);
        else if (t === 0x12) kind = string(r);
        else skip(r, t, end);
      }
    } else if (tag === 0x12) {
      const end = lengthEnd(r);
      raw = [r.pos, end];
      r.pos = end;
    } else if (tag === 0x1a || tag === 0x22) {
      const text = string(r);
      if (text !== '' && !(tag === 0x22 && text === 'application/vnd.kubernetes.protobuf'))
        throw new ProtobufDecodeError(
          'UnsupportedEncoding',
          `the object is wrapped in ${tag === 0x1a ? 'encoding' : 'content type'} ${text}`,
        );
    } else skip(r, tag, buf.length);
  }
  const message = messageOfKind(apiVersion, kind);
  const object = new message.Shape();
  object.apiVersion = apiVersion;
  object.kind = kind;
  if (raw === undefined) return object;
  r.pos = raw[0];
  decodeInto(r, raw[1], message, object);
  return object;
}

/** The message of `apiVersion`/`kind`: its group version's, else meta/v1's (Status, List…). */
export function messageOfKind(apiVersion: string, kind: string): Message {
  const pkg = PROTOBUF_GROUP_VERSIONS[apiVersion];
  const message = (pkg !== undefined && compile(`${pkg}.${kind}`)) || compile(`meta.v1.${kind}`);
  if (!message)
    throw new ProtobufDecodeError('UnknownKind', `no protobuf schema for ${apiVersion || '(no apiVersion)'} ${kind || '(no kind)'}`);
  return message;
}

/** Whether the table has `apiVersion`'s schema: the group versions the protobuf wire is asked for. */
export function hasProtobufSchema(apiVersion: string): boolean {
  return Object.hasOwn(PROTOBUF_GROUP_VERSIONS, apiVersion);
}

/** Decodes `buf[start, end)` as a WatchEvent (`type`, the object's whole body in a RawExtension). */
export function decodeWatchEvent(buf: Buffer, start: number, end: number): { type: string; object: Record<string, unknown> } {
  const r: Reader = { buf, pos: start };
  let type = '';
  let object: Record<string, unknown> | undefined;
  while (r.pos < end) {
    const tag = varint(r);
    if (tag === 0x0a) type = string(r);
    else if (tag === 0x12) {
      const outer = lengthEnd(r);
      while (r.pos < outer) {
        const t = varint(r);
        if (t === 0x0a) {
          const rawEnd = lengthEnd(r);
          object = decodeObjectBody(buf.subarray(r.pos, rawEnd));
          r.pos = rawEnd;
        } else skip(r, t, outer);
      }
    } else skip(r, tag, end);
  }
  if (r.pos !== end) throw truncated();
  if (object === undefined) throw new ProtobufDecodeError('NoObject', `a ${type || 'typeless'} watch event without an object`);
  return { type, object };
}

/** Reads the fields of `message` up to `end` into `out`, then fills what JSON has for absent fields. */
function decodeInto(r: Reader, end: number, message: Message, out: Record<string, unknown>): void {
  const byNum = message.byNum;
  while (r.pos < end) {
    const tag = varint(r);
    const field = byNum[tag >>> 3];
    if (field === undefined) {
      skip(r, tag, end); // a field this version does not know (a newer server's)
      continue;
    }
    if ((tag & 7) !== field.wire) {
      if ((tag & 7) !== 2 || !(field.flags & F.REPEATED) || field.wire !== 0) throw wrongWire(message, field, tag & 7);
      readPacked(r, field, out);
      continue;
    }
    if (field.flags & F.MAP) readEntry(r, field, out);
    else if (field.flags & F.REPEATED) {
      const list = (out[field.name] as unknown[] | undefined) ?? (out[field.name] = []);
      (list as unknown[]).push(value(r, field));
    } else if (field.flags & F.INLINE) {
      const inner = lengthEnd(r);
      decodeInto(r, inner, field.message!, out);
    } else {
      const v = value(r, field);
      if (field.flags & F.DROPPED) continue;
      if (keep(field, v)) out[field.name] = v;
    }
  }
  if (r.pos !== end) throw truncated();
  for (const field of message.absent) if (!(field.name in out)) fillAbsent(field, out);
  // Arrays grown by push keep spare capacity; JSON.parse's are exact: copy them to their length.
  for (const field of message.lists) {
    const list = out[field.name];
    if (Array.isArray(list)) out[field.name] = list.slice();
  }
}

/** Whether a present field's value is in the JSON: pointers always; omitempty zeros and omitzero zero times not. */
function keep(field: Field, v: unknown): boolean {
  if (field.flags & F.POINTER) return true;
  if (field.flags & F.OMITZERO && v === null) return false;
  if (!(field.flags & F.OMITEMPTY)) return true;
  return !(v === '' || v === 0 || v === false);
}

/** What JSON has for a field absent from the wire: a zero scalar, null for a nil slice or map, a zero struct. */
function fillAbsent(field: Field, out: Record<string, unknown>): void {
  if (field.flags & (F.REPEATED | F.MAP)) out[field.name] = null;
  else if (field.flags & F.INLINE) {
    const inner: Record<string, unknown> = {};
    decodeInto({ buf: EMPTY, pos: 0 }, 0, field.message!, inner);
    for (const k in inner) if (!(k in out)) out[k] = inner[k];
  } else {
    const v = zeroOf(field);
    if (!(field.flags & F.OMITZERO && v === null)) out[field.name] = v;
  }
}

const EMPTY = Buffer.alloc(0);
/** A reader of no bytes: the zero value of a special type. */
const NOTHING: Reader = { buf: EMPTY, pos: 0 };

/** The JSON of a zero value of a non-pointer field's type. */
function zeroOf(field: Field): unknown {
  switch (field.kind) {
    case K.STRING:
      return '';
    case K.BYTES:
      return null;
    case K.INT32:
    case K.INT64:
      return 0;
    case K.BOOL:
      return false;
    default:
      return special(field.kind, NOTHING, 0);
  }
}

/** One value of a field (its tag read). */
function value(r: Reader, field: Field): unknown {
  switch (field.kind) {
    case K.STRING:
      return string(r);
    case K.BYTES: {
      const end = lengthEnd(r);
      const text = r.buf.toString('base64', r.pos, end);
      r.pos = end;
      return text;
    }
    case K.INT32:
      return int32(r);
    case K.INT64:
      return int64(r);
    case K.BOOL:
      return varint(r) !== 0;
    default: {
      const end = lengthEnd(r);
      if (field.kind !== K.MESSAGE) return special(field.kind, r, end);
      const out = new field.message!.Shape();
      decodeInto(r, end, field.message!, out);
      return field.message!.slice ? ((out as { items?: unknown }).items ?? []) : out;
    }
  }
}

/** A `map<string, V>` entry into `out[field.name]`. */
function readEntry(r: Reader, field: Field, out: Record<string, unknown>): void {
  const end = lengthEnd(r);
  let key = '';
  let v: unknown;
  while (r.pos < end) {
    const tag = varint(r);
    if (tag === 0x0a) key = string(r);
    else if (tag >>> 3 === 2 && (tag & 7) === field.wire) v = value(r, field);
    else skip(r, tag, end);
  }
  if (r.pos !== end) throw truncated();
  const map = (out[field.name] as Record<string, unknown> | undefined) ?? (out[field.name] = {});
  (map as Record<string, unknown>)[key] = v === undefined ? (field.kind === K.BYTES ? '' : zeroOf(field)) : v;
}

/** A packed repeated varint field. */
function readPacked(r: Reader, field: Field, out: Record<string, unknown>): void {
  const end = lengthEnd(r);
  const list = ((out[field.name] as unknown[] | undefined) ?? (out[field.name] = [])) as unknown[];
  while (r.pos < end) list.push(field.kind === K.BOOL ? varint(r) !== 0 : field.kind === K.INT32 ? int32(r) : int64(r));
  if (r.pos !== end) throw truncated();
}

/**
 * The meta types with a JSON form of their own, read field by field without an object for their
 * parts (Time: seconds 1, nanos 2; Quantity: string 1; IntOrString: type 1, intVal 2, strVal 3;
 * Duration: duration 1; RawExtension and FieldsV1: raw 1).
 */
function special(kind: number, r: Reader, end: number): unknown {
  if (kind === K.RAW_JSON) return rawJson(r, end);
  let a = 0; // seconds, type, duration
  let b = 0; // nanos, intVal
  let text = ''; // Quantity's string, strVal
  while (r.pos < end) {
    const tag = varint(r);
    if (tag === 0x08) a = int64(r);
    else if (tag === 0x10) b = int64(r);
    else if (tag === 0x0a && kind === K.QUANTITY) text = string(r);
    else if (tag === 0x1a && kind === K.INT_OR_STRING) text = string(r);
    else skip(r, tag, end);
  }
  if (r.pos !== end) throw truncated();
  switch (kind) {
    case K.TIME:
    case K.MICRO_TIME:
      return timeText(a, b, kind === K.MICRO_TIME);
    case K.QUANTITY:
      return text || '0';
    case K.INT_OR_STRING:
      return a === 1 ? text : b | 0;
    default:
      return durationText(a);
  }
}

/** A RawExtension or FieldsV1: its `raw` bytes are JSON, or a whole protobuf body (null when there are none). */
function rawJson(r: Reader, end: number): unknown {
  let json: unknown = null;
  const buf = r.buf;
  while (r.pos < end) {
    const tag = varint(r);
    if (tag !== 0x0a) {
      skip(r, tag, end);
      continue;
    }
    const rawEnd = lengthEnd(r);
    const at = r.pos;
    r.pos = rawEnd;
    if (rawEnd - at >= 4 && buf[at] === MAGIC[0] && buf[at + 1] === MAGIC[1] && buf[at + 2] === MAGIC[2] && buf[at + 3] === MAGIC[3])
      json = decodeObjectBody(buf.subarray(at, rawEnd));
    else if (rawEnd > at) {
      try {
        json = JSON.parse(utf8(buf, at, rawEnd));
      } catch (cause) {
        throw new ProtobufDecodeError('BadRawJson', 'an embedded raw object is neither JSON nor protobuf', { cause });
      }
    }
  }
  return json;
}

/** metav1.Time as `encoding/json` writes it (RFC 3339 in UTC; microseconds for MicroTime); null when zero. */
function timeText(seconds = 0, nanos = 0, micro: boolean): string | null {
  if (seconds === 0 && nanos === 0) return null;
  if (!micro) {
    // The objects of a list share a few seconds (creation, managedFields, conditions): format each once.
    const known = secondsText.get(seconds);
    if (known !== undefined) return known;
  }
  const ms = seconds * 1000;
  if (!(ms >= -62_135_596_800_000 && ms <= 253_402_300_799_000) || nanos < 0 || nanos > 999_999_999)
    throw new ProtobufDecodeError('BadTime', `a time out of range: ${seconds} s ${nanos} ns`);
  const iso = new Date(ms).toISOString(); // 2026-11-29T14:00:00.000Z
  if (micro) return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
  if (secondsText.size >= 4096) secondsText.clear();
  const text = `${iso.slice(0, 19)}Z`;
  secondsText.set(seconds, text);
  return text;
}

/** Seconds formatted lately (at most 4,096, then forgotten at once). */
const secondsText = new Map<number, string>();

/** metav1.Duration as Go's `time.Duration.String()`: `1h2m3.5s`, `150ms`, `0s`. */
export function durationText(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let n = Math.abs(ns);
  if (n < 1e9) {
    const [unit, div] = n < 1e3 ? ['ns', 1] : n < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimZeros(n / div)}${unit}`;
  }
  const h = Math.floor(n / 3.6e12);
  n -= h * 3.6e12;
  const m = Math.floor(n / 6e10);
  n -= m * 6e10;
  return `${sign}${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${trimZeros(n / 1e9)}s`;
}

function trimZeros(x: number): string {
  return String(Number(x.toFixed(9)));
}

function wrongWire(message: Message, field: Field, wire: number): ProtobufDecodeError {
  return new ProtobufDecodeError('BadWireType', `${message.name}.${field.name} came with wire type ${wire}, not ${field.wire}`);
}

/** The `metadata.continue` of a list body, read without decoding its items; undefined when empty or not there. */
export function peekListContinue(body: Uint8Array): string | undefined {
  try {
    const buf = asBuffer(body);
    const r: Reader = { buf, pos: 4 };
    while (r.pos < buf.length) {
      const tag = varint(r);
      if (tag !== 0x12) {
        skip(r, tag, buf.length);
        continue;
      }
      const rawEnd = lengthEnd(r); // the list message: ListMeta is field 1, written first
      if (varint(r) !== 0x0a) return undefined;
      const metaEnd = lengthEnd(r);
      while (r.pos < metaEnd && r.pos < rawEnd) {
        const t = varint(r);
        if (t === 0x1a) return string(r) || undefined; // ListMeta.continue is field 3
        skip(r, t, metaEnd);
      }
      return undefined;
    }
  } catch {
    // A wrong guess only costs the prefetch; the decoder reports a malformed body.
  }
  return undefined;
}
