/**
 * Small HTTP helpers of the simulator: JSON and Status answers, body reading with a size limit,
 * query parsing, and the route parser for `/api/v1/...` and `/apis/{g}/{v}/...` paths.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from '@rxinformer/core';
import { errors } from './status.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';

/** Largest accepted request body (3 MiB, like the API server). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Sends a JSON body. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, code, JSON.stringify(body), headers);
}

/** Sends JSON that is already serialized. */
export function sendJsonText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

/** Sends a Status, with `Retry-After` when it carries `retryAfterSeconds`. 429 is text/plain like the real limiter. */
export function sendStatus(res: ServerResponse, status: Status & { code: number }): void {
  const retry = status.details?.retryAfterSeconds;
  const headers: Record<string, string> = retry !== undefined && retry > 0 ? { 'Retry-After': String(retry) } : {};
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status.code === 429) {
    const text = 'Too many requests, please try again later.\n';
    res.writeHead(429, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    });
    res.end(text);
    return;
  }
  sendJson(res, status.code, status, headers);
}

/** Reads the whole request body as text (413 beyond `MAX_BODY_BYTES`). */
export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

/** Reads the whole request body as bytes (413 beyond `MAX_BODY_BYTES`). */
export async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      const err = errors.badRequest('the request body is too large');
      err.status.code = 413;
      err.status.reason = 'RequestEntityTooLarge';
      throw err;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; a 400 Status for anything that is not JSON. `allowEmpty` returns undefined for no body. */
export function parseJsonBody(text: string, allowEmpty = false): unknown {
  if (text.trim() === '') {
    if (allowEmpty) return undefined;
    throw errors.badRequest('the request body is empty: an object is required');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/**
 * Reads an object body by its Content-Type: `application/vnd.kubernetes.protobuf` is decoded for
 * the built-in kinds of `protobufSchemas.ts` (415 for others), anything else parsed as JSON.
 * `allowEmpty` returns undefined for no body.
 */
export async function readObjectBody(req: IncomingMessage, allowEmpty = false): Promise<unknown> {
  const bytes = await readBodyBytes(req);
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== PROTOBUF_MEDIA_TYPE) return parseJsonBody(bytes.toString('utf8'), allowEmpty);
  if (bytes.length === 0 && allowEmpty) return undefined;
  return decodeProtobufObject(bytes);
}

/** Reads typed query parameters, with 400 answers for bad values. */
export class Query {
  readonly params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.params = params;
  }

  /** A string parameter. */
  str(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  /** A boolean parameter (`true`/`1`/`false`/`0`). */
  bool(name: string): boolean {
    const v = this.params.get(name);
    if (v === null || v === '' || v === 'false' || v === '0') return false;
    if (v === 'true' || v === '1') return true;
    throw errors.badRequest(`invalid value for ${name}: "${v}" (want true or false)`, [
      { reason: 'FieldValueInvalid', message: `invalid boolean "${v}"`, field: name },
    ]);
  }

  /** A non-negative integer parameter. */
  int(name: string): number | undefined {
    const v = this.params.get(name);
    if (v === null || v === '') return undefined;
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
      throw errors.badRequest(`invalid value for ${name}: "${v}" is not a non-negative integer`, [
        { reason: 'FieldValueInvalid', message: `Invalid value: "${v}"`, field: name },
      ]);
    }
    return Number(v);
  }
}

/** A parsed resource path. */
export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The legacy `/watch/` path prefix was used. */
  legacyWatch: boolean;
}

/**
 * Parses `/api/v1/...` and `/apis/{g}/{v}/...` resource paths. `isNamespaced(group, version, r)`
 * disambiguates `namespaces/{ns}/{resource}` from `namespaces/{name}/{subresource}`.
 * Returns undefined for a path that names no resource.
 */
export function parseResourcePath(
  path: string,
  isNamespaced: (group: string, version: string, resource: string) => boolean,
): ResourcePath | undefined {
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1];
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1];
    version = segs[2];
    rest = segs.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && isNamespaced(group, version, rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const out: ResourcePath = { group, version, resource: rest[0], legacyWatch };
  if (namespace !== undefined) out.namespace = namespace;
  if (rest[1] !== undefined) out.name = rest[1];
  if (rest[2] !== undefined) out.subresource = rest[2];
  return out;
}
