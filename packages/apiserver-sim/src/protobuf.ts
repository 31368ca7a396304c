/**
 * Decodes `application/vnd.kubernetes.protobuf` request bodies (what kubectl 1.32+ sends for
 * `kubectl create …`) into the JSON object the same request in `application/json` would carry:
 * the `k8s\x00` magic, the runtime.Unknown envelope (typeMeta, raw, contentEncoding,
 * contentType), then the kind's message read with the tables of `protobufSchemas.ts`.
 */
import { ApiStatusError, failure } from './status.ts';
import { MESSAGE_SCHEMAS, PROTOBUF_KINDS, type FieldSchema } from './protobufSchemas.ts';
import { decodeUtf8, float64, readFields, readPackedVarints, WireFormatError, type WireField } from './protobufWire.ts';

/** The Kubernetes protobuf media type. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The four bytes every Kubernetes protobuf body starts with: `k8s\x00`. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The runtime.Unknown envelope around a protobuf object. */
export interface ProtobufEnvelope {
  /** `typeMeta.apiVersion`, e.g. `apps/v1`. */
  apiVersion: string;
  /** `typeMeta.kind`, e.g. `Deployment`. */
  kind: string;
  /** The object's own protobuf message. */
  raw: Uint8Array;
  /** How `raw` is encoded; empty for none (the only one accepted). */
  contentEncoding: string;
  /** The media type of `raw`; empty means protobuf. */
  contentType: string;
}

/**
 * Reads the magic and runtime.Unknown envelope of a body. Throws {@link WireFormatError} for a
 * body that is not one.
 */
export function readEnvelope(body: Uint8Array): ProtobufEnvelope {
  if (body.length < PROTOBUF_MAGIC.length || PROTOBUF_MAGIC.some((b, i) => body[i] !== b)) {
    throw new WireFormatError('the body does not start with the k8s\\x00 protobuf magic');
  }
  const env: ProtobufEnvelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  for (const f of readFields(body.subarray(PROTOBUF_MAGIC.length))) {
    if (f.num === 1) {
      for (const t of readFields(bytesOf(f))) {
        if (t.num === 1) env.apiVersion = decodeUtf8(bytesOf(t));
        if (t.num === 2) env.kind = decodeUtf8(bytesOf(t));
      }
    } else if (f.num === 2) env.raw = bytesOf(f);
    else if (f.num === 3) env.contentEncoding = decodeUtf8(bytesOf(f));
    else if (f.num === 4) env.contentType = decodeUtf8(bytesOf(f));
  }
  return env;
}

/**
 * Decodes a protobuf request body to the object JSON would carry (apiVersion and kind first;
 * unset and omitempty-zero fields left out; quantities as strings; times as RFC 3339).
 * Throws an `ApiStatusError` 415 UnsupportedMediaType naming the kind for a kind the simulator
 * has no schema for, a field it does not decode, or bytes that are not a protobuf object.
 *
 * @example
 * const obj = decodeProtobufObject(await readBodyBytes(req)); // { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} }
 */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  let env: ProtobufEnvelope | undefined;
  try {
    env = readEnvelope(body);
    if (env.contentEncoding !== '') throw new WireFormatError(`content encoding "${env.contentEncoding}" is not supported`);
    if (env.contentType !== '' && env.contentType !== PROTOBUF_MEDIA_TYPE)
      throw new WireFormatError(`raw content type "${env.contentType}" is not supported`);
    const message = PROTOBUF_KINDS[`${env.apiVersion}/${env.kind}`];
    if (message === undefined) throw new WireFormatError('the simulator has no protobuf schema for this kind');
    return { apiVersion: env.apiVersion, kind: env.kind, ...decodeMessage(message, env.raw) };
  } catch (e) {
    if (!(e instanceof WireFormatError)) throw e;
    const kind = env?.kind ? `${env.apiVersion}, Kind=${env.kind}` : 'unknown kind';
    throw new ApiStatusError(
      failure(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - cannot decode ${PROTOBUF_MEDIA_TYPE} for ${kind}: ${e.message}; accepted media types include: application/json`,
        {
          ...(env?.kind ? { kind: env.kind } : {}),
          ...(env?.apiVersion.includes('/') ? { group: env.apiVersion.split('/')[0] } : {}),
        },
      ),
    );
  }
}

/** Decodes one message by its schema name. */
function decodeMessage(name: string, bytes: Uint8Array): Record<string, unknown> {
  const schema = MESSAGE_SCHEMAS[name];
  const out: Record<string, unknown> = {};
  for (const f of readFields(bytes)) {
    const field: FieldSchema | undefined = schema[f.num];
    if (field === undefined) throw new WireFormatError(`field ${f.num} of ${name} is not decoded by the simulator`);
    const [json, type, flagText = ''] = field;
    const flags = flagText.split(' ');
    if (flags.includes('map')) {
      let key = '';
      let value: unknown = type === 'string' || type === 'bytes' ? '' : undefined;
      for (const e of readFields(bytesOf(f))) {
        if (e.num === 1) key = decodeUtf8(bytesOf(e));
        else if (e.num === 2) value = decodeValue(type, e, `${name}.${json}`);
      }
      ((out[json] ??= {}) as Record<string, unknown>)[key] = value ?? zeroOf(type);
    } else if (flags.includes('repeated')) {
      const list = (out[json] ??= []) as unknown[];
      if (f.wire === 2 && isVarintType(type))
        list.push(...readPackedVarints(f.value).map((v) => decodeValue(type, { num: f.num, wire: 0, value: v }, json)));
      else list.push(decodeValue(type, f, `${name}.${json}`));
    } else {
      const value = decodeValue(type, f, `${name}.${json}`);
      if (flags.includes('inline')) Object.assign(out, value);
      else if (value === undefined || (!flags.includes('keep') && isOmittedZero(type, value))) delete out[json];
      else out[json] = value;
    }
  }
  return out;
}

/** One value of a field (undefined for a zero Time, which JSON leaves out). */
function decodeValue(type: string, f: WireField, where: string): unknown {
  switch (type) {
    case 'string':
      return decodeUtf8(bytesOf(f, where));
    case 'bytes':
      return Buffer.from(bytesOf(f, where)).toString('base64');
    case 'int32':
      return Number(BigInt.asIntN(32, varintOf(f, where)));
    case 'int64':
      return Number(BigInt.asIntN(64, varintOf(f, where)));
    case 'bool':
      return varintOf(f, where) !== 0n;
    case 'double':
      if (f.wire !== 1) throw new WireFormatError(`${where}: expected a 64-bit field`);
      return float64(f.value);
    case 'quantity':
      return (decodeMessage('Quantity', bytesOf(f, where)).string as string | undefined) ?? '0';
    case 'time':
    case 'microTime':
      return timeOf(decodeMessage('Time', bytesOf(f, where)), type === 'microTime');
    case 'intOrString': {
      const v = decodeMessage('IntOrString', bytesOf(f, where));
      return v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0);
    }
    default:
      return decodeMessage(type, bytesOf(f, where));
  }
}

/** metav1.Time `{seconds, nanos}` as RFC 3339 (`…Z`, with microseconds for MicroTime); undefined when zero. */
function timeOf(t: Record<string, unknown>, micro: boolean): string | undefined {
  const seconds = (t.seconds as number | undefined) ?? 0;
  const nanos = (t.nanos as number | undefined) ?? 0;
  if (seconds === 0 && nanos === 0) return undefined;
  // RFC 3339 years 0001–9999, as Go's time marshalling allows.
  if (
    !Number.isInteger(seconds) ||
    seconds < -62_135_596_800 ||
    seconds > 253_402_300_799 ||
    !Number.isInteger(nanos) ||
    nanos < 0 ||
    nanos > 999_999_999
  ) {
    throw new WireFormatError(`time out of range: seconds ${seconds}, nanos ${nanos}`);
  }
  const iso = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

function isVarintType(type: string): boolean {
  return type === 'int32' || type === 'int64' || type === 'bool';
}

/** The JSON value of a map entry that carries no value field. */
function zeroOf(type: string): unknown {
  if (type === 'string' || type === 'bytes') return '';
  if (type === 'quantity') return '0';
  if (type === 'bool') return false;
  return isVarintType(type) ? 0 : {};
}

/** A zero scalar of an omitempty Go field, which `encoding/json` leaves out. */
function isOmittedZero(type: string, value: unknown): boolean {
  return (
    (type === 'string' || type === 'bytes' || isVarintType(type) || type === 'double') && (value === '' || value === 0 || value === false)
  );
}

function bytesOf(f: WireField, where = 'envelope'): Uint8Array {
  if (f.wire !== 2) throw new WireFormatError(`${where}: expected a length-delimited field, got wire type ${f.wire}`);
  return f.value;
}

function varintOf(f: WireField, where: string): bigint {
  if (f.wire !== 0) throw new WireFormatError(`${where}: expected a varint, got wire type ${f.wire}`);
  return f.value;
}
