/**
 * DELETE of an object or a collection: DeleteOptions from the body and the query, and the answer
 * the API server gives (the object's last state for the kinds that return it and for an object
 * only marked for deletion, else a Success Status; the deleted items for a collection).
 */
import { renderObject, type Rendering } from './rendering.ts';
import { readObjectBody } from './requestBody.ts';
import type { RequestContext, ResourceCall } from './requestContext.ts';
import type { Query } from './requestUrl.ts';
import { groupVersion } from './resources.ts';
import { sendJson, sendJsonText } from './responses.ts';
import { listJson } from './serialize.ts';
import { compileSelectors } from './selectors.ts';
import { errors } from './status.ts';
import type { DeleteOptions } from './writeContext.ts';

/** The DeleteOptions of a request: the query's `gracePeriodSeconds` and `propagationPolicy` win over the body's. */
function deleteOptions(body: unknown, q: Query, dryRun: boolean): DeleteOptions {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    throw errors.badRequest('DeleteOptions must be a JSON object');
  const b = (body ?? {}) as DeleteOptions & { kind?: string };
  const out: DeleteOptions = {};
  const grace = q.int('gracePeriodSeconds') ?? b.gracePeriodSeconds;
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  if (b.preconditions) out.preconditions = b.preconditions;
  const policy = q.str('propagationPolicy') ?? b.propagationPolicy;
  if (policy !== undefined) {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw errors.invalid(
        'DeleteOptions',
        '',
        [
          {
            reason: 'FieldValueNotSupported',
            message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
            field: 'propagationPolicy',
          },
        ],
        'meta.k8s.io',
      );
    }
    out.propagationPolicy = policy;
  }
  return { ...out, ...(dryRun ? { dryRun: ['All'] } : {}) };
}

/** Answers the DELETE of one object. */
export async function serveDelete(
  ctx: RequestContext,
  { req, res, route, r, q }: ResourceCall,
  dryRun: boolean,
  mode: Rendering,
): Promise<void> {
  const opts = deleteOptions(await readObjectBody(req, true), q, dryRun);
  const name = route.name as string;
  const before = ctx.objects.get(r, route.namespace, name);
  const last = ctx.objects.delete(r, route.namespace, name, opts);
  const returnsObject =
    (r.group === '' && (r.resource === 'pods' || r.resource === 'namespaces')) ||
    r.custom ||
    r.resource === 'customresourcedefinitions' ||
    last.metadata?.deletionTimestamp !== undefined;
  if (returnsObject) return sendJson(res, 200, renderObject(mode, r, last));
  return sendJson(res, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, ...(r.group ? { group: r.group } : {}), kind: r.resource, uid: before.metadata?.uid },
  });
}

/** Answers the DELETE of a collection: every object the selectors match, in one namespace or all. */
export async function serveDeleteCollection(ctx: RequestContext, { req, res, route, r, q }: ResourceCall, dryRun: boolean): Promise<void> {
  const opts = deleteOptions(await readObjectBody(req, true), q, dryRun);
  const matcher = compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector'));
  const doomed = ctx.objects.list(r, route.namespace).filter((o) => matcher.matches(o));
  for (const o of doomed) ctx.objects.delete(r, o.metadata?.namespace, o.metadata?.name as string, opts);
  // as the API server: the items as they were before the delete
  const metadata = { resourceVersion: String(ctx.storage.resourceVersion) };
  return sendJsonText(res, 200, listJson(r.listKind, groupVersion(r), metadata, doomed, r.custom));
}
