/**
 * The protobuf schema table (`schema.generated.ts`) compiled, message by message as the decoder
 * first meets it, into arrays indexed by field number.
 */
import { PROTOBUF_MESSAGES } from './schema.generated.ts';

/** How a field's value is decoded. */
export const K = {
  STRING: 0,
  BYTES: 1,
  INT32: 2,
  INT64: 3,
  BOOL: 4,
  MESSAGE: 5,
  TIME: 6,
  MICRO_TIME: 7,
  QUANTITY: 8,
  INT_OR_STRING: 9,
  DURATION: 10,
  RAW_JSON: 11,
} as const;

/** A field's JSON rules, as bits. */
export const F = { REPEATED: 1, MAP: 2, POINTER: 4, OMITEMPTY: 8, OMITZERO: 16, INLINE: 32, DROPPED: 64 } as const;

const FLAG_LETTERS: Record<string, number> = {
  r: F.REPEATED,
  m: F.MAP,
  p: F.POINTER,
  e: F.OMITEMPTY,
  z: F.OMITZERO,
  i: F.INLINE,
  x: F.DROPPED,
};
const SCALAR: Record<string, number> = { s: K.STRING, y: K.BYTES, i: K.INT32, l: K.INT64, b: K.BOOL };
/** The meta types whose Go types write JSON their own way. */
const SPECIAL: Record<string, number> = {
  'meta.v1.Time': K.TIME,
  'meta.v1.MicroTime': K.MICRO_TIME,
  'meta.v1.Duration': K.DURATION,
  'meta.v1.FieldsV1': K.RAW_JSON,
  'resource.Quantity': K.QUANTITY,
  'intstr.IntOrString': K.INT_OR_STRING,
  'runtime.RawExtension': K.RAW_JSON,
};

/** One field of a message. */
export interface Field {
  readonly name: string;
  readonly kind: number;
  /** The wire type its values come with: 0 varint, 2 length-delimited. */
  readonly wire: number;
  readonly flags: number;
  /** The message of a message-typed field (special ones too: their parts). */
  readonly message?: Message;
}

/** One message. */
export interface Message {
  readonly name: string;
  /** Fields by number. */
  readonly byNum: (Field | undefined)[];
  /** The fields JSON has a value for when the wire has none: zeros, nulls, zero structs. */
  readonly absent: Field[];
  /** The repeated fields. */
  readonly lists: Field[];
  /** A Go named slice: JSON is its items array. */
  readonly slice: boolean;
  /**
   * Makes the plain objects of this message: V8 sizes the objects of one constructor to the
   * properties they come to hold (as JSON.parse sizes its objects), where objects made with `{}`
   * keep their later properties in a separate, slack store: 17% more heap per pod measured.
   */
  readonly Shape: new () => Record<string, unknown>;
}

/** A constructor of plain objects (their prototype `Object.prototype`, as a literal's). */
function plainShape(): new () => Record<string, unknown> {
  const Shape = function () {} as unknown as new () => Record<string, unknown>;
  Shape.prototype = Object.prototype;
  return Shape;
}

const compiled = new Map<string, Message | false>();

/** The compiled message `name` (`core.v1.Pod`), or false when the table has none. */
export function compile(name: string): Message | false {
  const known = compiled.get(name);
  if (known !== undefined) return known;
  const text = Object.hasOwn(PROTOBUF_MESSAGES, name) ? PROTOBUF_MESSAGES[name] : undefined;
  if (text === undefined) {
    compiled.set(name, false);
    return false;
  }
  const parts = text === '' ? [] : text.split(';');
  const message: Message = { name, byNum: [], absent: [], lists: [], slice: parts[0] === '=', Shape: plainShape() };
  compiled.set(name, message); // before its fields: messages may nest themselves
  for (const part of message.slice ? parts.slice(1) : parts) {
    const [num, json, type, letters = ''] = part.split(',');
    let flags = 0;
    for (const l of letters) flags |= FLAG_LETTERS[l];
    const scalar = SCALAR[type];
    const kind = scalar ?? SPECIAL[type] ?? K.MESSAGE;
    const nested = scalar === undefined ? compile(type) : undefined;
    if (nested === false) throw new Error(`protobuf schema: ${name}.${json} refers to ${type}, which the table lacks`);
    const wire = kind === K.INT32 || kind === K.INT64 || kind === K.BOOL ? 0 : 2;
    const field: Field = { name: json, kind, wire, flags, message: nested };
    message.byNum[Number(num)] = field;
    if (fillsWhenAbsent(field)) message.absent.push(field);
    if (flags & F.REPEATED && !(flags & F.MAP)) message.lists.push(field);
  }
  return message;
}

function fillsWhenAbsent(f: Field): boolean {
  if (f.flags & (F.POINTER | F.DROPPED)) return false;
  if (f.flags & (F.REPEATED | F.MAP)) return !(f.flags & F.OMITEMPTY);
  if (f.kind >= K.MESSAGE) return true; // encoding/json never leaves out a struct for omitempty
  return !(f.flags & F.OMITEMPTY);
}
