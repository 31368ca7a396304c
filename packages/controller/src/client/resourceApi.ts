/**
 * Reads and writes of one resource, addressed by its `ResourceDescriptor`: get, create, PUT,
 * immer-drafted updates sent as JSON Patch, merge patches, server-side apply, status writes, delete
 * with preconditions, and client-go's `CreateOrUpdate`.
 */
import {
  InvalidObjectError,
  InvalidOptionsError,
  type KubeObject,
  type ListPage,
  type ResourceDescriptor,
  type Status,
} from '@rxinformer/core';
import { pathSegment, resourcePath } from '@rxinformer/core/http';
import { checkSelectors } from '@rxinformer/core/labels';
import type { ApiClient, ApiRequest } from './apiClient.ts';
import { isNotFound, toApiError } from './apiError.ts';
import { draftPatch, guardedOperations, type JsonPatchOperation, type Recipe } from './jsonPatch.ts';

/** Names an object: its namespace (namespaced resources) and name. A `KubeObject` is one too, through `refOf`. */
export interface ObjectRef {
  /** The namespace; required for a namespaced resource. */
  namespace?: string;
  /** The name. */
  name: string;
}

/** Options of every write. */
export interface WriteOptions {
  /** The `fieldManager` recorded in `managedFields`. Default: the server's (the client's user agent). */
  fieldManager?: string;
  /** True: the server validates and answers, but stores nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** Options of server-side apply. */
export interface ApplyOptions extends WriteOptions {
  /** Required: the manager that owns the fields of the applied configuration. */
  fieldManager: string;
  /** True: take fields another manager owns instead of failing with a 409 conflict. Default false. */
  force?: boolean;
}

/** Options of a delete. */
export interface DeleteOptions extends Omit<WriteOptions, 'fieldManager'> {
  /** Delete only if the object still has this uid and/or resourceVersion (409 Conflict otherwise). */
  preconditions?: Preconditions;
  /** What happens to the objects it owns. Default: the resource's (`Background` for most). */
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Seconds of graceful termination; 0 deletes at once. */
  gracePeriodSeconds?: number;
}

/** Options of `list` and `listAll`: which objects, and which page. */
export interface ListOptions {
  /** The namespace listed (a namespaced resource); omitted: every namespace. */
  namespace?: string;
  /** Only objects whose labels match, e.g. `app=web,tier!=cache`. */
  labelSelector?: string;
  /** Only objects whose fields match, e.g. `status.phase=Failed` (the fields the resource supports). */
  fieldSelector?: string;
  /** At most this many objects in a page (`listAll`: per request). Default: the server's (all), 500 for `listAll`. */
  limit?: number;
  /** The `continue` token of the page before. */
  continue?: string;
  /** `resourceVersion` of the read: `'0'` lets the server answer from its cache (may be stale). Default: a consistent read. */
  resourceVersion?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** What the object must still be for a delete to go ahead. */
export interface Preconditions {
  /** Its uid: a recreated namesake is not deleted. */
  uid?: string;
  /** Its resourceVersion: a changed object is not deleted. */
  resourceVersion?: string;
}

/** What `createOrUpdate` did, as controller-runtime's `OperationResult`. */
export type CreateOrUpdateResult = 'created' | 'updated' | 'unchanged';

/** The answer of `createOrUpdate`. */
export interface CreateOrUpdateOutcome<T> {
  /** The object as the server has it now (`obj` read, when unchanged). */
  object: T;
  /** What was done. */
  result: CreateOrUpdateResult;
}

/**
 * The reads and writes of one resource. Every call resolves with the server's object.
 *
 * Caveat: a name, namespace or subresource that is not one path segment (`.`, `..`, holding `/`
 * or `%`) is an `InvalidPathSegmentError`, thrown (rejected, for `update`, `updateStatus` and
 * `createOrUpdate`) before anything is sent: as a URL, `name: '.'` is the collection and `'..'`
 * the namespace, so a delete would remove them.
 */
export interface ResourceApi<T extends KubeObject> {
  /** The resource addressed. */
  readonly resource: ResourceDescriptor<T>;
  /** The client requests go through. */
  readonly client: ApiClient;
  /**
   * Reads one object live from the server (a consistent read); an `ApiError` 404 when there is none
   * (see `isNotFound`). In a reconcile, read the cache (`req.object`, an informer's store) first:
   * a live read is for what the controller does not follow, or a check that cannot wait for the
   * cache.
   */
  get(ref: ObjectRef, options?: { signal?: AbortSignal }): Promise<T>;
  /**
   * Lists one page of objects live (a consistent read unless `resourceVersion` says otherwise):
   * its `items` (with the descriptor's `apiVersion` and `kind`, which list items lack) and
   * `metadata.continue` for the next page, to pass as `continue`.
   */
  list(options?: ListOptions): Promise<ListPage<T>>;
  /**
   * Lists every object live, page by page (`limit` per request, default 500) from one snapshot:
   * the items of all pages and the list's `resourceVersion`. A `410 Gone` (the snapshot expired
   * between pages, after about five minutes) rejects: list again.
   */
  listAll(options?: Omit<ListOptions, 'continue'>): Promise<ListPage<T>>;
  /** Creates `obj`; an `ApiError` 409 AlreadyExists when the name is taken. */
  create(obj: T, options?: WriteOptions): Promise<T>;
  /** PUTs the whole object; 409 Conflict unless its `metadata.resourceVersion` is the current one. */
  replace(obj: T, options?: WriteOptions): Promise<T>;
  /**
   * Changes `obj` with an immer `recipe` and sends only what changed, as a JSON Patch on condition
   * of `obj`'s resourceVersion (409 Conflict if the object changed since). Sends nothing and resolves
   * with `obj` when the recipe changed nothing.
   */
  update(obj: T, recipe: Recipe<T>, options?: WriteOptions): Promise<T>;
  /** As `update`, on the `status` subresource: only the recipe's status changes are kept. */
  updateStatus(obj: T, recipe: Recipe<T>, options?: WriteOptions): Promise<T>;
  /** Sends an RFC 6902 JSON Patch as is (to `subresource` when given). */
  jsonPatch(ref: ObjectRef, operations: JsonPatchOperation[], options?: WriteOptions & { subresource?: string }): Promise<T>;
  /** Sends an RFC 7386 merge patch (`null` deletes a field; arrays are replaced whole). */
  mergePatch(ref: ObjectRef, patch: object, options?: WriteOptions & { subresource?: string }): Promise<T>;
  /**
   * Server-side apply of `obj`, a partial object holding the fields this manager owns (its
   * `apiVersion` and `kind` default to the descriptor's).
   */
  apply(obj: T | Partial<T>, options: ApplyOptions): Promise<T>;
  /** Server-side apply to the `status` subresource. */
  applyStatus(obj: T | Partial<T>, options: ApplyOptions): Promise<T>;
  /**
   * Reads `obj`'s namesake and `update`s it with `recipe`, or, when there is none, creates `obj`
   * after the recipe ran on it: as controller-runtime's `CreateOrUpdate`, one function for both.
   */
  createOrUpdate(obj: T, recipe: Recipe<T>, options?: WriteOptions): Promise<CreateOrUpdateOutcome<T>>;
  /** Deletes; resolves with the object (still there, being finalized) or the server's Status. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<T | Status>;
}

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * The `ResourceApi` of `resource` over `client`.
 *
 * @example
 * const cms = resourceApi(fetchApiClient({ baseUrl }), { group: '', version: 'v1', resource: 'configmaps', namespaced: true });
 * const cm = await cms.get({ namespace: 'default', name: 'settings' });
 * await cms.update(cm, (d) => { d.data = { ...d.data, mode: 'fast' }; });
 */
export function resourceApi<T extends KubeObject>(client: ApiClient, resource: ResourceDescriptor<T>): ResourceApi<T> {
  if (typeof client?.request !== 'function') throw new InvalidOptionsError('resourceApi needs an ApiClient');
  resourcePath(resource); // checks the descriptor now
  const path = (ref: ObjectRef, subresource?: string) => itemPath(resource, ref, subresource);
  const send = async <R = T>(req: ApiRequest): Promise<R> => {
    try {
      return await client.request<R>(req);
    } catch (e) {
      throw toApiError(e, `${req.method} ${req.path}`);
    }
  };
  const write = (method: ApiRequest['method'], p: string, body: unknown, o: WriteOptions = {}, contentType?: string, extra = {}) =>
    send({ method, path: p, body, contentType, signal: o.signal, query: { ...writeQuery(o), ...extra } });
  const patched = async (obj: T, recipe: Recipe<T>, o?: WriteOptions, subresource?: string): Promise<T> => {
    const operations = guardedOperations(obj, draftPatch(obj, recipe).operations);
    if (operations.length === 0) return obj;
    return write('PATCH', path(refOf(obj), subresource), operations, o, JSON_PATCH);
  };
  const applied = (obj: T | Partial<T>, o: ApplyOptions, subresource?: string): Promise<T> => {
    if (typeof o?.fieldManager !== 'string' || o.fieldManager === '') throw new InvalidOptionsError('apply needs a fieldManager');
    const body = { apiVersion: apiVersionOf(resource), kind: resource.kind, ...obj };
    return write('PATCH', path(refOf(obj as T), subresource), body, o, APPLY_PATCH, { force: o.force === true ? true : undefined });
  };
  return {
    resource,
    client,
    get: (ref, o) => send({ method: 'GET', path: path(ref), signal: o?.signal }),
    list: (o) => listPage(resource, send, o ?? {}),
    async listAll(o = {}) {
      const first = await listPage(resource, send, { limit: 500, ...o });
      let page = first;
      while (page.metadata?.continue) {
        page = await listPage(resource, send, { limit: 500, ...o, continue: page.metadata.continue });
        first.items.push(...page.items);
      }
      return { ...first, metadata: { resourceVersion: first.metadata?.resourceVersion } };
    },
    create: (obj, o) => write('POST', collectionPath(resource, obj), obj, o),
    replace: (obj, o) => write('PUT', path(refOf(obj)), obj, o),
    update: (obj, recipe, o) => patched(obj, recipe, o),
    updateStatus: (obj, recipe, o) => patched(obj, recipe, o, 'status'),
    jsonPatch: (ref, operations, o) => write('PATCH', path(ref, o?.subresource), operations, o, JSON_PATCH),
    mergePatch: (ref, patch, o) => write('PATCH', path(ref, o?.subresource), patch, o, MERGE_PATCH),
    apply: (obj, o) => applied(obj, o),
    applyStatus: (obj, o) => applied(obj, o, 'status'),
    async createOrUpdate(obj, recipe, o) {
      let current: T;
      try {
        current = await send<T>({ method: 'GET', path: path(refOf(obj)), signal: o?.signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        return { object: await write('POST', collectionPath(resource, obj), draftPatch(obj, recipe).next, o), result: 'created' };
      }
      const object = await patched(current, recipe, o);
      return { object, result: object === current ? 'unchanged' : 'updated' };
    },
    delete: (ref, o = {}) => {
      const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...deleteBody(o) };
      return send({ method: 'DELETE', path: path(ref), body, signal: o.signal, query: { dryRun: o.dryRun ? 'All' : undefined } });
    },
  };
}

/**
 * The namespace and name of an object (or a ref given as one).
 *
 * @example
 * refOf({ metadata: { namespace: 'a', name: 'x' } }); // { namespace: 'a', name: 'x' }
 */
export function refOf(obj: KubeObject | ObjectRef, needName = true): ObjectRef {
  const meta = 'metadata' in obj ? obj.metadata : (obj as ObjectRef);
  const name = meta?.name;
  if (needName && (typeof name !== 'string' || name === '')) throw new InvalidObjectError('the object has no metadata.name', obj);
  return { namespace: meta?.namespace || undefined, name: name ?? '' };
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(resource: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/**
 * The path of one object (and its subresource). A name, namespace or subresource that is not one
 * path segment (`.`, `..`, holding `/` or `%`) is an `InvalidPathSegmentError`: `name: '.'` would
 * reach the collection, `'..'` the namespace.
 */
function itemPath(resource: ResourceDescriptor, ref: ObjectRef, subresource?: string): string {
  if (typeof ref?.name !== 'string' || ref.name === '') throw new InvalidOptionsError(`a ${resource.resource} request needs a name`);
  const item = `${resourcePath(resource, namespaceFor(resource, ref.namespace))}/${pathSegment('name', ref.name)}`;
  return subresource === undefined ? item : `${item}/${pathSegment('subresource', subresource)}`;
}

/** Where `obj` is created: its namespace's collection (one is needed for a namespaced resource). */
function collectionPath(resource: ResourceDescriptor, obj: KubeObject): string {
  return resourcePath(resource, namespaceFor(resource, refOf(obj, false).namespace));
}

/** The namespace of a request: required for a namespaced resource, ignored for a cluster-scoped one. */
function namespaceFor(resource: ResourceDescriptor, namespace: string | undefined): string | undefined {
  if (resource.namespaced && !namespace) throw new InvalidOptionsError(`${resource.resource} are namespaced: a namespace is needed`);
  return resource.namespaced ? namespace : undefined;
}

/** One page of `resource`'s objects, each with the descriptor's `apiVersion` and `kind` (list items lack them). */
async function listPage<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  send: <R>(req: ApiRequest) => Promise<R>,
  o: ListOptions,
): Promise<ListPage<T>> {
  if (o === null || typeof o !== 'object') throw new InvalidOptionsError('list options must be an object');
  checkSelectors(o);
  const { namespace, labelSelector, fieldSelector, limit, continue: token, resourceVersion, signal } = o;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidOptionsError(`list: limit must be an integer >= 1, got ${String(limit)}`);
  const query = { labelSelector, fieldSelector, limit, continue: token, resourceVersion };
  const page = await send<ListPage<T>>({
    method: 'GET',
    path: resourcePath(resource, resource.namespaced ? namespace : undefined),
    query,
    signal,
  });
  if (!Array.isArray(page?.items)) throw new InvalidObjectError(`the answer to a list of ${resource.resource} has no items`, page);
  const typed = { apiVersion: apiVersionOf(resource), ...(resource.kind && { kind: resource.kind }) };
  return { ...page, items: page.items.map((item) => ({ ...typed, ...item })) };
}

function writeQuery(o: WriteOptions): ApiRequest['query'] {
  return { fieldManager: o.fieldManager, dryRun: o.dryRun ? 'All' : undefined };
}

function deleteBody(o: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (o.preconditions) body.preconditions = o.preconditions;
  if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  return body;
}
