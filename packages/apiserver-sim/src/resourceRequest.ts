/**
 * Requests of the resource API (`/api/v1/...`, `/apis/{g}/{v}/...`): the verb from the method and
 * path, its authorization, the write options of the query (`fieldManager`, `dryRun`,
 * `fieldValidation`), and the handler of each verb. Answers render objects as the client's Accept
 * header asks (`rendering.ts`).
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '@rxinformer/core';
import { authorizeRequest } from './authorization.ts';
import { serveList, serveWatch } from './collectionRequest.ts';
import { answerReview, answerTokenRequest, isReview } from './reviews.ts';
import { serveDelete, serveDeleteCollection } from './deleteRequest.ts';
import { applyPatch } from './patchRequest.ts';
import { renderingOf, renderObject } from './rendering.ts';
import { readBody, readObjectBody } from './requestBody.ts';
import type { RequestContext, ResourceCall } from './requestContext.ts';
import { isWatch, type Query, type ResourcePath } from './requestUrl.ts';
import { sendJson } from './responses.ts';
import { errors } from './status.ts';
import type { WriteOptions } from './writeContext.ts';

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

function verbOf(method: string, route: ResourcePath, watch: boolean): Verb {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : route.name !== undefined ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name !== undefined ? 'delete' : 'deletecollection';
    default:
      throw errors.methodNotAllowed();
  }
}

function userAgentManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? 'unknown';
  return ua.split('/')[0].slice(0, 128) || 'unknown';
}

/** The options kind kube-apiserver names when it refuses a write verb's query options. */
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};

/**
 * The write options of a request's query (a write verb's bad `fieldValidation` or `dryRun`: 422
 * naming its options kind, as kube-apiserver answers); the manager defaults to the user agent's name.
 */
function writeOptionsOf(req: IncomingMessage, q: Query, route: ResourcePath, verb: string): WriteOptions & { dryRun: boolean } {
  const fieldValidation = q.str('fieldValidation');
  const dryRun = q.params.getAll('dryRun');
  const optionsKind = OPTIONS_KIND[verb];
  const unsupported = (field: string, value: string, supported: string) =>
    errors.invalid(
      optionsKind,
      '',
      [{ reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${value}: supported values: ${supported}` }],
      'meta.k8s.io',
    );
  if (optionsKind !== undefined && fieldValidation !== undefined && !['Strict', 'Warn', 'Ignore', ''].includes(fieldValidation))
    throw unsupported('fieldValidation', JSON.stringify(fieldValidation), '"", "Ignore", "Strict", "Warn"');
  if (optionsKind !== undefined && dryRun.some((d) => d !== 'All')) throw unsupported('dryRun', JSON.stringify(dryRun), '"All"');
  return {
    fieldManager: q.str('fieldManager') ?? userAgentManager(req),
    dryRun: dryRun.includes('All'),
    ...(route.subresource ? { subresource: route.subresource } : {}),
  };
}

/** Serves one request of resource `r` (405 for a verb the resource does not serve, 403 for a denied one). */
export async function serveResource(ctx: RequestContext, call: ResourceCall, method: string): Promise<void> {
  const { req, res, route, r, q } = call;
  const verb = verbOf(method, route, isWatch(route, method, q));
  if (!r.verbs.includes(verb) || (route.subresource === 'token' && verb !== 'create')) throw errors.methodNotAllowed();
  const user = ctx.faults.authenticate(req.headers.authorization);
  const attrs = {
    verb,
    group: r.group,
    resource: r.resource,
    namespace: route.namespace,
    name: route.name,
    subresource: route.subresource,
  };
  authorizeRequest(ctx, user, attrs);
  const cls = verb === 'watch' ? 'watch' : verb === 'get' || verb === 'list' ? 'list' : 'write';
  const refused = ctx.faults.requestFailure({ userAgent: req.headers['user-agent'] ?? '', resource: r.resource, group: r.group, cls });
  if (refused) throw refused;
  const ns = route.namespace;
  const write = writeOptionsOf(req, q, route, verb);
  const mode = renderingOf(req, verb === 'list' ? 'list' : verb === 'watch' ? 'watch' : 'object', r, q.str('includeObject'));
  const one = (obj: KubeObject, code = 200) => sendJson(res, code, renderObject(mode, r, obj));
  switch (verb) {
    case 'watch':
      return serveWatch(ctx, call, mode);
    case 'list':
      return serveList(ctx, call, mode);
    case 'get':
      return one(ctx.objects.get(r, ns, route.name as string));
    case 'create': {
      if (route.subresource === 'token' && r.resource === 'serviceaccounts' && ns !== undefined && route.name !== undefined)
        return one(answerTokenRequest(ctx, ns, route.name, (await readObjectBody(req)) as KubeObject), 201);
      if (route.name !== undefined) throw errors.methodNotAllowed();
      const body = (await readObjectBody(req)) as KubeObject;
      if (isReview(r)) return one(answerReview(ctx, r, body, user), 201);
      return one(ctx.objects.create(r, body, ns, { ...write, owned: true }), 201);
    }
    case 'update': {
      if (route.name === undefined) throw errors.methodNotAllowed();
      const body = (await readObjectBody(req)) as KubeObject;
      // the handler's name check, before the storage's key check
      if (!body.metadata?.name)
        throw errors.badRequest(`the name of the object (${route.name} based on URL) was undeterminable: name must be provided`);
      return one(ctx.objects.update(r, body, ns, route.name, { ...write, owned: true }));
    }
    case 'patch': {
      if (route.name === undefined) throw errors.methodNotAllowed();
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
      const text = await readBody(req);
      const patchOptions = {
        ...write,
        force: q.params.has('force') ? q.bool('force') : undefined,
        explicitFieldManager: q.str('fieldManager') !== undefined,
      };
      const { object, created } = applyPatch(ctx.objects, r, ns, route.name, contentType, text, patchOptions);
      return one(object, created ? 201 : 200);
    }
    case 'delete':
      return serveDelete(ctx, call, write.dryRun, mode);
    case 'deletecollection':
      return serveDeleteCollection(ctx, call, write.dryRun);
  }
}
