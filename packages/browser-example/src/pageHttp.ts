/**
 * The request and response of the page server, whether the page speaks HTTP/1.1 or HTTP/2: node's
 * compatibility API gives both the same methods, which these types name.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';

/** A request to the page server, over HTTP/1.1 or HTTP/2. */
export type PageRequest = IncomingMessage | Http2ServerRequest;
/** Its response (a `ServerResponse` or an `Http2ServerResponse`): what the page server uses of it. */
export interface PageResponse {
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders): unknown;
  end(): unknown;
  end(body: string): unknown;
  destroy(error?: Error): unknown;
  on(event: 'close', listener: () => void): unknown;
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
}

/** The response as the stream it is (both kinds are written like a `Writable`). */
export function writable(res: PageResponse): NodeJS.WritableStream {
  return res as unknown as NodeJS.WritableStream;
}

/** Answers with `body` as text (or only the headers, for HEAD). */
export function sendText(res: PageResponse, code: number, body: string, headers: Record<string, string> = {}, headOnly = false): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  if (headOnly) res.end();
  else res.end(body);
}
