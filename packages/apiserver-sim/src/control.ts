/**
 * The simulator's control endpoints, the out-of-process face of `sim.faults`: `GET /_sim/state` and
 * `POST /_sim/faults/<name>`. The server serves them only with the `controlEndpoints` option, behind
 * the same bearer token as the API; a POST must say `Content-Type: application/json`, which a page on
 * another origin cannot send without a CORS preflight (that the simulator never grants), while a
 * text/plain or form POST it can send unasked is answered 415 and changes nothing. `runFault` maps
 * a request's name and JSON body onto a `Faults` method.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidOptionsError, type Status } from '@rxinformer/core';
import type { AuthOptions, FailOptions, Faults, RequestClass } from './faults.ts';
import { parseJsonBody, readBody } from './requestBody.ts';
import type { ResourceRegistry } from './resources.ts';
import { sendJson } from './responses.ts';
import { errors } from './status.ts';
import type { Storage } from './storage.ts';
import type { WatchHub, WatchTarget } from './watchHub.ts';

/** What the control endpoints read and act on. */
export interface ControlContext {
  /** The revision and history reported. */
  readonly storage: Storage;
  /** The open watches reported. */
  readonly hub: WatchHub;
  /** The resources whose counts are reported. */
  readonly registry: ResourceRegistry;
  /** What the fault endpoints act on. */
  readonly faults: Faults;
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

/** The names accepted by `POST /_sim/faults/<name>`. */
export const FAULT_ENDPOINTS = [
  'dropWatches',
  'injectWatchError',
  'compact',
  'failNext',
  'latency',
  'stallWatches',
  'malformedLine',
  'restart',
  'auth',
  'forbid',
  'allow',
  'reset',
] as const;

/** A control request's body, read for one fault. */
interface FaultRequest {
  /** The JSON body. */
  body: Record<string, unknown>;
  /** The `target` field (default `all`). */
  target: WatchTarget;
  /** A non-negative number field, or `fallback` when absent (400 for anything else). */
  num(field: string, fallback?: number): number | undefined;
}

const FAIL_CODES = [500, 503, 429, 410, 504];
const REQUEST_CLASSES = ['any', 'read', 'list', 'watch', 'write', 'discovery'];

function failNext(faults: Faults, r: FaultRequest): Record<string, unknown> {
  const code = r.num('code', 500) as number;
  if (!FAIL_CODES.includes(code)) throw errors.badRequest('code must be one of 500, 503, 429, 410, 504');
  const on = (r.body.on as RequestClass | undefined) ?? 'any';
  if (!REQUEST_CLASSES.includes(on)) throw errors.badRequest(`on must be any, read, list, watch, write or discovery`);
  const retry = r.num('retryAfterSeconds');
  faults.failNext(r.num('count', 1) as number, {
    code: code as FailOptions['code'],
    on,
    ...(retry !== undefined ? { retryAfterSeconds: retry } : {}),
  });
  return {};
}

function auth(faults: Faults, { body }: FaultRequest): Record<string, unknown> {
  if (body.token === undefined || body.token === null) faults.setAuth(undefined);
  else if (typeof body.token !== 'string' || body.token === '')
    throw errors.badRequest('token must be a non-empty string (or null to turn auth off)');
  else faults.setAuth({ token: body.token, forbidden: (body.forbidden as AuthOptions['forbidden']) ?? [] });
  return {};
}

function forbid(faults: Faults, { body }: FaultRequest): Record<string, unknown> {
  if (typeof body.resource !== 'string') throw errors.badRequest('resource is required');
  try {
    faults.forbid(body.resource, body.verbs as string[] | undefined);
  } catch (e) {
    throw errors.badRequest((e as Error).message);
  }
  return {};
}

/** What each control endpoint does, and its JSON answer (`hit`: how many watches it reached now). */
const FAULT_RUNNERS: Record<(typeof FAULT_ENDPOINTS)[number], (faults: Faults, r: FaultRequest) => Record<string, unknown>> = {
  dropWatches: (faults, r) => ({ hit: faults.dropWatches(r.target) }),
  injectWatchError: (faults, r) => ({ hit: faults.injectWatchError(r.body.status as Status | undefined, r.target) }),
  compact: (faults) => {
    faults.compact();
    return {};
  },
  failNext,
  latency: (faults, r) => {
    faults.latency(r.num('ms', 0) as number, r.num('jitterMs', 0));
    return {};
  },
  stallWatches: (faults, r) => ({ hit: faults.stallWatches(r.target) }),
  malformedLine: (faults, r) => ({ hit: faults.malformedLine(r.target, typeof r.body.text === 'string' ? r.body.text : undefined) }),
  // the answer goes out first: serveControl restarts once it is sent
  restart: () => ({}),
  auth,
  forbid,
  allow: (faults, { body }) => {
    if (typeof body.resource !== 'string') throw errors.badRequest('resource is required');
    faults.allow(body.resource);
    return {};
  },
  reset: (faults) => {
    faults.reset();
    return {};
  },
};

/**
 * Runs a fault named by an HTTP control request. Body fields: `target` (all|one|next), `status`,
 * `count`, `code`, `retryAfterSeconds`, `on`, `ms`, `jitterMs`, `text`, `token`, `forbidden`,
 * `resource`, `verbs`. Returns the JSON answer.
 */
export function runFault(faults: Faults, name: string, body: Record<string, unknown>): Record<string, unknown> {
  const target = (body.target as WatchTarget | undefined) ?? 'all';
  if (!['all', 'one', 'next'].includes(target)) throw errors.badRequest(`target must be all, one or next, got ${String(target)}`);
  const num = (k: string, d?: number): number | undefined => {
    const v = body[k];
    if (v === undefined) return d;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw errors.badRequest(`${k} must be a non-negative number`);
    return v;
  };
  if (!Object.hasOwn(FAULT_RUNNERS, name)) throw errors.unknownPath();
  try {
    return FAULT_RUNNERS[name as keyof typeof FAULT_RUNNERS](faults, { body, target, num });
  } catch (e) {
    if (e instanceof InvalidOptionsError) throw errors.badRequest(e.message); // a fault's own check (retryAfterSeconds: 1.5)
    throw e;
  }
}
