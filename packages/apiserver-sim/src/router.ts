/**
 * The path of every request through the simulator: the control endpoints (`/_sim/...`, when
 * served), the bearer token, the injected latency and failures, then discovery or the resource
 * API. Errors thrown on the way are answered with their Status by the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveControl, type ControlContext } from './control.ts';
import { notFoundText, serveDiscovery, type ServerVersion } from './discovery.ts';
import { authorizeRequest } from './authorization.ts';
import { failureError, SIM_ADMIN, type RequestClass } from './faults.ts';
import type { RevisionWait } from './listPages.ts';
import type { RequestContext } from './requestContext.ts';
import { isWatch, parseResourcePath, Query, requestTarget } from './requestUrl.ts';
import { serveResource } from './resourceRequest.ts';
import type { ResourceRegistry } from './resources.ts';
import { errors } from './status.ts';
import { after } from './timers.ts';

/** Everything a request may reach. */
export interface ServerContext extends RequestContext, ControlContext {
  /** The resources served (built-ins and CRDs). */
  readonly registry: ResourceRegistry;
  /** The version `/version` reports. */
  readonly version: ServerVersion;
  /** The resolved `controlEndpoints` option. */
  readonly controlEndpoints: boolean;
}

/** Routes one request; throws `ApiStatusError` for the server to answer. */
export async function routeRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { path, query } = requestTarget(req.url ?? '/');
  if (path.startsWith('/_sim/')) {
    // The token first, as on every path (the admin's only); switched off, the endpoints are unknown paths.
    const user = ctx.faults.authenticate(req.headers.authorization);
    if (user && user !== SIM_ADMIN) throw errors.unauthorized();
    if (!ctx.controlEndpoints) throw errors.unknownPath();
    return serveControl(ctx, req, res, path);
  }
  const method = req.method ?? 'GET';
  const route = parseResourcePath(path, (g, v, r) => ctx.registry.get(g, v, r)?.namespaced === true);
  const q = new Query(query);
  const cls: RequestClass = !route ? 'discovery' : method === 'GET' ? (isWatch(route, method, q) ? 'watch' : 'list') : 'write';
  const user = ctx.faults.authenticate(req.headers.authorization);
  if (!route) authorizeRequest(ctx, user, { verb: method === 'GET' || method === 'HEAD' ? 'get' : method.toLowerCase(), path });
  const delay = ctx.faults.delayMs();
  if (delay > 0) await sleepCancellable(delay, ctx.wait);
  const failure = ctx.faults.takeFailure(cls as Exclude<RequestClass, 'any' | 'read'>);
  if (failure) throw failureError(failure);
  // a path under a group/version that names no resource (`namespaces/a%2Fb/configmaps/x`): not found, whatever the method
  if (!route && method !== 'GET' && method !== 'HEAD' && belowGroupVersion(path)) throw errors.unknownPath();
  if (!route) return serveDiscovery(ctx.registry, ctx.version, req, res, path, method);
  const resInfo = ctx.registry.get(route.group, route.version, route.resource);
  if (!resInfo && !ctx.registry.all().some((r) => r.group === route.group && r.version === route.version)) {
    // a group/version nothing serves: the API server's plain-text not-found handler, not a Status
    return notFoundText(res);
  }
  if (!resInfo) throw errors.unknownPath();
  if (route.subresource !== undefined && !resInfo.subresources.includes(route.subresource)) throw errors.unknownPath();
  if (!resInfo.namespaced && route.namespace !== undefined) throw errors.unknownPath();
  return serveResource(ctx, { req, res, route, r: resInfo, q }, method);
}

/** True for a path below `/api/{v}/` or `/apis/{g}/{v}/`: a resource's place, not a discovery document's. */
function belowGroupVersion(path: string): boolean {
  const segs = path.split('/').filter((s) => s !== '');
  return (segs[0] === 'api' && segs.length > 2) || (segs[0] === 'apis' && segs.length > 3);
}

/** Waits `ms` (the latency fault); a closing server cancels the wait, which then fails with 503. */
function sleepCancellable(ms: number, wait: RevisionWait): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const untrack = wait.track(() => {
      cancel();
      reject(errors.unavailable('the server is shutting down'));
    });
    // Node timers (never the virtual scheduler; the open request holds the process), of any length.
    const cancel = after(undefined, ms, () => {
      untrack();
      resolve();
    });
  });
}
