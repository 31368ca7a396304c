/**
 * Reading request bodies: the whole body with the API server's size limit (413), JSON parsing
 * (400), and object bodies decoded by their Content-Type.
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
