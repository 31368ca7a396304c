/** A small HTTPS client for the environment's own calls to kube-apiserver (readiness, setup). */
import { request } from 'node:https';

/** Where and as whom to call. */
export interface ServerAccess {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The CA bundle (PEM) the server's certificate chains to. */
  readonly ca: string;
  /** The bearer token. */
  readonly token: string;
}

/** An answer: status and body text (at most 1 MiB is kept). */
export interface Answer {
  readonly status: number;
  readonly body: string;
}

/** Calls `method path` with an optional JSON body; rejects only when there is no answer within `timeoutMs`. */
export function callServer(access: ServerAccess, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${access.url}${path}`,
      {
        method,
        ca: access.ca,
        headers: {
          authorization: `Bearer ${access.token}`,
          accept: 'application/json',
          ...(data !== undefined && { 'content-type': 'application/json' }),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 1 << 20) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(data);
  });
}
