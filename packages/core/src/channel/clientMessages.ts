/**
 * What a server accepts from a client: each received value is checked field by field and copied
 * into a clean message (only the fields the protocol knows, of the types it says, within bounds),
 * or refused with the reason, so nothing hostile reaches an informer or a map key.
 */
import type { InformerScope, ListOptions, ResourceDescriptor, WatchOptions } from '../types.ts';
import type { ClientMessage, StreamRequest } from './protocol.ts';

/** A received value that is not a message the protocol allows: why, and its stream id when it had a usable one. */
export interface RefusedMessage {
  /** What is wrong, for the `error` answer's message (never quoting the value). */
  refused: string;
  /** The request's id, when it had one. */
  id?: string;
}

/** Longest stream id. */
export const MAX_ID_LENGTH = 64;
/** Longest group, resource, kind or namespace (a DNS subdomain). */
const MAX_NAME_LENGTH = 253;
/** Longest selector, continue token or resource version. */
const MAX_TEXT_LENGTH = 8192;
/** The fields of a request that are the protocol's: any other is kept in `extra`. */
const REQUEST_FIELDS = new Set(['t', 'id', 'resource', 'scope', 'options']);
/** Most extra fields kept from one request; their names are identifiers of at most 32 characters. */
const MAX_EXTRA_FIELDS = 8;
const EXTRA_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/**
 * The message `raw` is, checked and copied; or why it is refused.
 *
 * @example
 * const m = parseClientMessage(received);
 * if ('refused' in m) reply({ t: 'error', id: m.id, status: failureStatus(400, 'BadRequest', m.refused) });
 */
export function parseClientMessage(raw: unknown): ClientMessage | RefusedMessage {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { refused: 'a message must be an object' };
  const m = raw as Record<string, unknown>;
  switch (m.t) {
    case 'hello':
      return typeof m.v === 'number' ? { t: 'hello', v: m.v } : { refused: 'hello needs a numeric v' };
    case 'ping':
    case 'bye':
      return { t: m.t };
    case 'cancel':
      return isId(m.id) ? { t: 'cancel', id: m.id } : { refused: 'cancel needs an id' };
    case 'list':
    case 'watch':
      return parseRequest(m.t, m);
    default:
      return { refused: `unknown message type ${typeof m.t === 'string' ? JSON.stringify(m.t.slice(0, 32)) : typeof m.t}`, ...idOf(m) };
  }
}

function parseRequest(t: 'list' | 'watch', m: Record<string, unknown>): StreamRequest | RefusedMessage {
  if (!isId(m.id)) return { refused: `${t} needs an id of 1 to ${MAX_ID_LENGTH} characters` };
  const id = m.id;
  try {
    const resource = descriptorOf(m.resource);
    const scope = scopeOf(m.scope);
    const more = extraOf(m);
    if (t === 'list') return { t, id, resource, scope, options: listOptionsOf(m.options), ...more };
    return { t, id, resource, scope, options: watchOptionsOf(m.options), ...more };
  } catch (e) {
    return { refused: (e as Error).message, id };
  }
}

/**
 * The request's fields beyond the protocol's, as `{ extra }` (none: `{}`): at most
 * `MAX_EXTRA_FIELDS`, each named as an identifier; values are left as they came, for the server to check.
 */
function extraOf(m: Record<string, unknown>): { extra?: Record<string, unknown> } {
  const names = Object.keys(m).filter((name) => !REQUEST_FIELDS.has(name) && m[name] !== undefined);
  if (names.length === 0) return {};
  if (names.length > MAX_EXTRA_FIELDS) throw new Error(`a request carries at most ${MAX_EXTRA_FIELDS} fields beyond the protocol's`);
  const extra = Object.create(null) as Record<string, unknown>;
  for (const name of names) {
    if (!EXTRA_NAME.test(name))
      throw new Error("a request field beyond the protocol's must be named as an identifier of at most 32 characters");
    extra[name] = m[name];
  }
  return { extra };
}

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH;
const idOf = (m: Record<string, unknown>): { id?: string } => (isId(m.id) ? { id: m.id } : {});

/** An object's own fields, or a throw naming `what`. Absent (undefined) is an empty object. */
function fields(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function text(o: Record<string, unknown>, name: string, max: number, required = false): string | undefined {
  const v = o[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.length > max || (required && v === ''))
    throw new Error(`${name} must be ${required ? 'a non-empty string' : 'a string'} of at most ${max} characters`);
  return v;
}

function flag(o: Record<string, unknown>, name: string): boolean | undefined {
  const v = o[name];
  if (v !== undefined && typeof v !== 'boolean') throw new Error(`${name} must be a boolean`);
  return v;
}

function count(o: Record<string, unknown>, name: string, integer: boolean): number | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v)))
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a finite number'} >= 0`);
  return v;
}

function match(o: Record<string, unknown>): ListOptions['resourceVersionMatch'] {
  const v = o.resourceVersionMatch;
  if (v !== undefined && v !== 'NotOlderThan' && v !== 'Exact') throw new Error('resourceVersionMatch must be NotOlderThan or Exact');
  return v;
}

/** Copies the defined entries of `o` only, so a message never carries `undefined` fields. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function descriptorOf(value: unknown): ResourceDescriptor {
  const o = fields(value, 'resource');
  if (typeof o.namespaced !== 'boolean') throw new Error('resource.namespaced must be a boolean');
  return defined({
    group: text(o, 'group', MAX_NAME_LENGTH, false) ?? '',
    version: text(o, 'version', 63, true)!,
    resource: text(o, 'resource', MAX_NAME_LENGTH, true)!,
    kind: text(o, 'kind', MAX_NAME_LENGTH),
    namespaced: o.namespaced,
    metadataOnly: flag(o, 'metadataOnly'),
  });
}

function scopeOf(value: unknown): InformerScope {
  const o = fields(value, 'scope');
  return defined({
    namespace: text(o, 'namespace', MAX_NAME_LENGTH),
    labelSelector: text(o, 'labelSelector', MAX_TEXT_LENGTH),
    fieldSelector: text(o, 'fieldSelector', MAX_TEXT_LENGTH),
  });
}

function listOptionsOf(value: unknown): ListOptions {
  const o = fields(value, 'options');
  return defined({
    limit: count(o, 'limit', true),
    continue: text(o, 'continue', MAX_TEXT_LENGTH),
    resourceVersion: text(o, 'resourceVersion', MAX_TEXT_LENGTH),
    resourceVersionMatch: match(o),
    timeoutSeconds: count(o, 'timeoutSeconds', false),
    singlePage: flag(o, 'singlePage'),
  });
}

function watchOptionsOf(value: unknown): WatchOptions {
  const o = fields(value, 'options');
  return defined({
    resourceVersion: text(o, 'resourceVersion', MAX_TEXT_LENGTH),
    resourceVersionMatch: match(o),
    allowWatchBookmarks: flag(o, 'allowWatchBookmarks'),
    timeoutSeconds: count(o, 'timeoutSeconds', false),
    sendInitialEvents: flag(o, 'sendInitialEvents'),
  });
}
