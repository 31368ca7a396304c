/**
 * A churn target over HTTP: the load generator's writes sent to an API server's REST API — the
 * simulator's, or a real kube-apiserver's — with a bearer token and the server's CA, over
 * keep-alive connections. Writes leave `managedFields` to the server (it records the field
 * manager given), and deletes are immediate (`gracePeriodSeconds: 0`: no kubelet ends a pod here).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { KubeObject } from '@rxinformer/core';
import { pathSegment } from '@rxinformer/core/http';
import type { ChurnTarget } from './loadGenerator.ts';

/** Options of `httpChurnTarget`. */
export interface HttpChurnTargetOptions {
  /** The server, e.g. `https://127.0.0.1:6443`. Required. */
  url: string;
  /** A bearer token. Default none. */
  token?: string;
  /** The CA bundle (PEM) of an HTTPS server. Default: the system's. */
  ca?: string;
  /** The core (`v1`) resource written, by its plural. Default `pods`. */
  resource?: string;
  /** Connections open at once at most. Default 32. */
  maxSockets?: number;
}

/** An answer the server gave with an error status. */
export class HttpTargetError extends Error {
  /** Always `HttpTargetError`: set as a string, so it survives minification. */
  override readonly name: string = 'HttpTargetError';
  /** The HTTP status of the answer. */
  readonly status: number;
  constructor(method: string, path: string, status: number, body: string) {
    super(`${method} ${path}: ${status} ${body.slice(0, 300)}`);
    this.status = status;
  }
}

/** A churn target over HTTP, with the reads a test needs of the same server. */
export interface HttpChurnTarget extends ChurnTarget {
  /** Every object of the resource (or of one namespace), by a consistent list in pages of 500. */
  list(namespace?: string): Promise<KubeObject[]>;
  /** Creates a namespace (an existing one is fine). */
  createNamespace(name: string): Promise<void>;
  /** Closes the connections. */
  close(): Promise<void>;
}

interface Answer {
  status: number;
  text: string;
}

/**
 * Creates a churn target writing to `options.url` over HTTP(S).
 *
 * @example
 * const target = httpChurnTarget({ url: env.url, token: env.token, ca: env.ca });
 * createLoadGenerator({ target, namespaces: ['soak'], seed: 1 }).seed(100);
 * const pods = await target.list();
 */
export function httpChurnTarget(options: HttpChurnTargetOptions): HttpChurnTarget {
  const base = new URL(options.url);
  const https = base.protocol === 'https:';
  const agent = https
    ? new HttpsAgent({ keepAlive: true, ca: options.ca, maxSockets: options.maxSockets ?? 32 })
    : new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets ?? 32 });
  const send = https ? httpsRequest : httpRequest;
  const resource = options.resource ?? 'pods';
  const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const req = send(new URL(path, base), { method, headers, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  const ok = async (method: string, path: string, body?: unknown, allow: number[] = []): Promise<Answer> => {
    const answer = await call(method, path, body);
    if (answer.status >= 400 && !allow.includes(answer.status)) throw new HttpTargetError(method, path, answer.status, answer.text);
    return answer;
  };
  const collection = (namespace: string) => `/api/v1/namespaces/${pathSegment('namespace', namespace)}/${resource}`;
  const item = (namespace: string, name: string) => `${collection(namespace)}/${pathSegment('name', name)}`;
  const manager = (fieldManager?: string) => (fieldManager ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '');
  return {
    create: (obj, namespace, fieldManager) => ok('POST', collection(namespace) + manager(fieldManager), forWriting(obj)),
    updateStatus: (obj, namespace, name, fieldManager) =>
      ok('PUT', `${item(namespace, name)}/status${manager(fieldManager)}`, forWriting(obj)),
    update: (obj, namespace, name) => ok('PUT', item(namespace, name), obj),
    delete: (namespace, name) => ok('DELETE', item(namespace, name), { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }),
    get: async (namespace, name) => {
      const answer = await ok('GET', item(namespace, name), undefined, [404]);
      return answer.status === 404 ? undefined : (JSON.parse(answer.text) as KubeObject);
    },
    list: async (namespace) => {
      const items: KubeObject[] = [];
      const path = namespace === undefined ? `/api/v1/${resource}` : collection(namespace);
      let token: string | undefined;
      do {
        const query = `?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
        const page = JSON.parse((await ok('GET', path + query)).text) as { items: KubeObject[]; metadata?: { continue?: string } };
        items.push(...page.items);
        token = page.metadata?.continue || undefined;
      } while (token);
      return items;
    },
    createNamespace: async (name) => {
      await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [409]);
    },
    close: () => {
      agent.destroy();
      return Promise.resolve();
    },
  };
}

/** The object to create or to write the status of: without the fields the server sets (it writes `managedFields` itself). */
function forWriting(obj: KubeObject): KubeObject {
  const { managedFields: _m, resourceVersion: _rv, uid: _uid, creationTimestamp: _c, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata };
}
