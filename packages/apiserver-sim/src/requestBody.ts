/**
 * Reading request bodies: the whole body with the API server's size limit (413), JSON parsing
 * (400), and object bodies decoded by their Content-Type (415 for a type the API does not serve).
 */
import type { IncomingMessage } from 'node:http';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';
import { errors } from './status.ts';

/** Largest accepted request body (3 MiB, like the API server). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

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

/** The media types of an object body, as the API server's serializers list them. */
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;

/**
 * The media type of an object body (lower case, parameters dropped): JSON when the request names
 * none, as on the API server; 415 for a type it does not serve, such as the text/plain, form and
 * multipart bodies a web page can make a browser send anywhere without a CORS preflight.
 */
function objectMediaType(req: IncomingMessage): string {
  const contentType = req.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase() || 'application/json';
  if (!(OBJECT_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    throw errors.unsupportedMediaType(contentType, OBJECT_MEDIA_TYPES.join(', '));
  }
  return mediaType;
}

/**
 * Reads an object body by its Content-Type: `application/vnd.kubernetes.protobuf` is decoded for
 * the built-in kinds of `protobufSchemas.ts` (415 for others), `application/json` and
 * `application/yaml` (JSON text only) parsed as JSON, any other type refused with 415 before the
 * body is read. `allowEmpty` (a delete) returns undefined for no body, whatever its Content-Type.
 */
export async function readObjectBody(req: IncomingMessage, allowEmpty = false): Promise<unknown> {
  // the API server negotiates the type before it reads a body; a delete's only when there is one
  if (!allowEmpty) objectMediaType(req);
  const bytes = await readBodyBytes(req);
  if (bytes.length === 0 && allowEmpty) return undefined;
  if (objectMediaType(req) !== PROTOBUF_MEDIA_TYPE) return parseJsonBody(bytes.toString('utf8'), allowEmpty);
  return decodeProtobufObject(bytes);
}
