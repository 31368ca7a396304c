/**
 * The simulator's control endpoints, the out-of-process face of `sim.faults`: `GET /_sim/state` and
 * `POST /_sim/faults/<name>`. The server serves them only with the `controlEndpoints` option, behind
 * the same bearer token as the API; a POST must say `Content-Type: application/json`, which a page on
 * another origin cannot send without a CORS preflight (that the simulator never grants), while a
 * text/plain or form POST it can send unasked is answered 415 and changes nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runFault, type Faults } from './faults.ts';
import { parseJsonBody, readBody, sendJson } from './http.ts';
import type { ResourceRegistry } from './resources.ts';
import { errors } from './status.ts';
import type { Storage } from './storage.ts';
import type { WatchHub } from './watchHub.ts';

/** What the control endpoints read and act on. */
export interface ControlContext {
  storage: Storage;
  hub: WatchHub;
  registry: ResourceRegistry;
  faults: Faults;
}

/** The only media type a control POST may carry. */
const JSON_MEDIA_TYPE = 'application/json';

/** The revision, history and open watches, for `GET /_sim/state`. */
function state(ctx: ControlContext): unknown {
  return {
    resourceVersion: String(ctx.storage.resourceVersion),
    compactedRevision: String(ctx.storage.compactedRevision),
    historySize: ctx.storage.historySize,
    watches: ctx.hub
      .sessions()
      .map((s) => ({ id: s.id, resource: s.spec.res.resource, namespace: s.spec.namespace, stalled: s.stalled, sent: s.sent })),
    resources: ctx.registry.all().map((r) => ({
      group: r.group,
      version: r.version,
      resource: r.resource,
      count: ctx.storage.count(`${r.group}/${r.version}/${r.resource}`),
    })),
  };
}

/**
 * Answers a request under `/_sim/`. The caller has already checked the bearer token: 404 for an
 * unknown endpoint, 405 for a wrong method, 415 for a POST that is not `application/json`, 400 for a
 * body that is not a JSON object.
 */
export async function serveControl(ctx: ControlContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (path === '/_sim/state') {
    if (req.method !== 'GET') throw errors.methodNotAllowed();
    return sendJson(res, 200, state(ctx));
  }
  const m = /^\/_sim\/faults\/([A-Za-z]+)$/.exec(path);
  if (!m) throw errors.unknownPath();
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const contentType = req.headers['content-type'] ?? '';
  if (contentType.split(';')[0].trim().toLowerCase() !== JSON_MEDIA_TYPE) throw errors.unsupportedMediaType(contentType, JSON_MEDIA_TYPE);
  const body = parseJsonBody(await readBody(req), true) ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('the body must be a JSON object');
  const answer = runFault(ctx.faults, m[1], body as Record<string, unknown>);
  if (m[1] === 'restart') {
    res.once('finish', () => setImmediate(() => ctx.faults.restart()));
  }
  sendJson(res, 200, { ok: true, ...answer }, { Connection: 'close' });
}
