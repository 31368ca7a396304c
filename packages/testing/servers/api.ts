/**
 * A test's own client of the server under test: plain HTTP calls with the server's token and CA,
 * independent of the code under test, answering `{ status, body }` or throwing `ApiCallError`.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Agent, request } from 'undici';

/** An answer of the server. */
export interface ApiAnswer<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** A call answered with an error status. */
export class ApiCallError extends Error {
  /** Always `ApiCallError`: set as a string, so it survives minification. */
  override readonly name: string = 'ApiCallError';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: any;

  constructor(method: string, path: string, status: number, body: any) {
    super(`${method} ${path}: ${status} ${typeof body === 'object' && body ? (body.message ?? JSON.stringify(body)) : String(body)}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = body;
  }
}

/** The content types of the four kinds of patch. */
export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** The calls a test makes. Paths are the API's, e.g. `/api/v1/namespaces/a/pods`. */
export interface TestApi {
  /** Any request; never throws for an error status. */
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>>;
  /**
   * As `call`, with the path sent as written: undici and fetch resolve `.` and `..` segments
   * before sending, this does not (to see what the server does with them).
   */
  raw<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>>;
  get<T = any>(path: string): Promise<T>;
  /** GET, or undefined on 404. */
  find<T = any>(path: string): Promise<T | undefined>;
  create<T = any>(collectionPath: string, body: unknown): Promise<T>;
  update<T = any>(path: string, body: unknown): Promise<T>;
  patch<T = any>(path: string, body: unknown, type?: keyof typeof PATCH_TYPES): Promise<T>;
  /**
   * DELETE with grace period 0 (a pod goes at once); resolves even on 404 when `ignoreMissing`.
   * `force` makes the object go now where a controller would finish the deletion on a cluster:
   * dependents in the background (a Job's default is to orphan them, through a finalizer), and
   * finalizers cleared (`kubernetes.io/pvc-protection`...).
   */
  delete(path: string, options?: { ignoreMissing?: boolean; force?: boolean }): Promise<void>;
  /** Drops every connection (after the server restarted: a kept-alive one it closed would fail the next call). */
  reconnect(): void;
  close(): Promise<void>;
}

/** A client of `url` with an optional bearer token and CA. */
export function createApi(access: { url: string; token?: string; ca?: string }): TestApi {
  const agent = () => new Agent({ connect: access.ca ? { ca: access.ca } : {}, connections: 16 });
  let dispatcher = agent();
  const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer<T>> => {
    const res = await request(`${access.url}${path}`, {
      method: method as 'GET',
      dispatcher,
      headers: {
        accept: 'application/json',
        ...(access.token !== undefined && { authorization: `Bearer ${access.token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body: parsed as T, headers: res.headers };
  };
  const ok = async <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> => {
    const answer = await call<T>(method, path, body, headers);
    if (answer.status >= 400) throw new ApiCallError(method, path, answer.status, answer.body);
    return answer.body;
  };
  return {
    call,
    raw: (method, path, body, headers) => rawCall(access, method, path, body, headers),
    get: (path) => ok('GET', path),
    find: async <T>(path: string) => {
      const answer = await call<T>('GET', path);
      if (answer.status === 404) return undefined;
      if (answer.status >= 400) throw new ApiCallError('GET', path, answer.status, answer.body);
      return answer.body;
    },
    create: (path, body) => ok('POST', path, body),
    update: (path, body) => ok('PUT', path, body),
    patch: (path, body, type = 'merge') => ok('PATCH', path, body, { 'content-type': PATCH_TYPES[type] }),
    delete: async (path, options = {}) => {
      const body = {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        gracePeriodSeconds: 0,
        ...(options.force && { propagationPolicy: 'Background' }),
      };
      const answer = await call<any>('DELETE', path, body);
      if (answer.status === 404 && options.ignoreMissing) return;
      if (answer.status >= 400) throw new ApiCallError('DELETE', path, answer.status, answer.body);
      // Still there, marked for deletion, waiting for its finalizers: clear them.
      if (options.force && answer.body?.metadata?.deletionTimestamp && answer.body.metadata.finalizers?.length) {
        const cleared = await call('PATCH', path, { metadata: { finalizers: null } }, { 'content-type': PATCH_TYPES.merge });
        if (cleared.status >= 400 && cleared.status !== 404) throw new ApiCallError('PATCH', path, cleared.status, cleared.body);
      }
    },
    reconnect: () => {
      void dispatcher.close().catch(() => undefined); // calls in flight end as they will
      dispatcher = agent();
    },
    close: () => dispatcher.close(),
  };
}

/** One request over node:http(s) with `path` as the request target, unresolved. */
function rawCall<T>(
  access: { url: string; token?: string; ca?: string },
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer<T>> {
  const url = new URL(access.url);
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: url.hostname,
        port: url.port,
        method,
        path, // as written: node:http does not resolve dot segments
        agent: false, // a connection of its own: an error answer may leave a body unread
        ...(access.ca !== undefined && { ca: access.ca }),
        headers: {
          accept: 'application/json',
          ...(access.token !== undefined && { authorization: `Bearer ${access.token}` }),
          ...(text !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = raw;
          try {
            parsed = raw ? JSON.parse(raw) : undefined;
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
