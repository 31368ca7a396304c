/**
 * The envelope rules every write applies before it touches the storage: a body must be a JSON
 * object of the resource's kind and apiVersion in the request's namespace; times are RFC 3339
 * seconds; which kinds keep `metadata.generation`; and a new state at the next revision.
 */
import type { KubeObject, ObjectMeta } from '@rxinformer/core';
import { cloneJson } from './json.ts';
import { groupVersion, type ResourceInfo } from './resources.ts';
import { errors } from './status.ts';
import { toStoredForm } from './storedForm.ts';
import type { Storage } from './storage.ts';
import type { WriteOptions } from './writeContext.ts';

/** A stored object, with the fields the write paths read. */
export type Obj = KubeObject & { spec?: unknown; status?: Record<string, unknown> } & Record<string, unknown>;

/** The gvr key of namespaces, whose deletion has its own lifecycle. */
export const NAMESPACES_KEY = '/v1/namespaces';

/** RFC 3339 time with whole seconds, like the API server writes it. */
export function timestamp(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}
let lastSecond = Number.NaN;
let lastStamp = '';

/**
 * The body of a create or update: a JSON object of the resource's kind (cloned unless owned) in the
 * form kube-apiserver stores (`toStoredForm`), and its metadata.
 */
export function writeInput(res: ResourceInfo, input: KubeObject, options: WriteOptions): { obj: Obj; meta: ObjectMeta } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw errors.badRequest('the body of the request must be a JSON object');
  const obj = (options.owned ? input : cloneJson(input)) as Obj;
  checkKind(res, obj);
  toStoredForm(obj, groupVersion(res), res.kind);
  return { obj, meta: obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {} };
}

function checkKind(res: ResourceInfo, obj: Obj): void {
  if (obj.kind !== undefined && obj.kind !== res.kind) {
    // the decoder's words: the body's kind cannot be converted to the resource's internal kind
    const version = String(obj.apiVersion ?? groupVersion(res))
      .split('/')
      .pop();
    const internal = `${res.group ? res.group.split('.')[0] : 'core'}.${res.kind}`;
    throw errors.badRequest(
      `${String(obj.kind)} in version ${JSON.stringify(version)} cannot be handled as a ${res.kind}: converting (${version}.${String(obj.kind)}) to (${internal}): unknown conversion`,
    );
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== groupVersion(res)) {
    throw errors.badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${groupVersion(res)})`,
    );
  }
}

/** The namespace of a write: the request's, else the body's (400 when they differ or a namespaced object has none). */
export function checkNamespace(res: ResourceInfo, meta: ObjectMeta, namespace: string | undefined): string | undefined {
  if (!res.namespaced) return undefined;
  const ns = namespace ?? meta.namespace;
  if (namespace !== undefined && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (!ns) throw errors.badRequest('the namespace of the object is required');
  return ns;
}

/**
 * Whether the API server keeps `metadata.generation` for a resource: the kinds whose registry
 * strategy sets it (workloads, CRDs, custom resources) and pods (since 1.33); not services,
 * namespaces, nodes, config maps or secrets.
 */
export function hasGeneration(res: ResourceInfo): boolean {
  return res.hasSpec || (res.group === '' && res.resource === 'pods');
}

/** `obj` with `changes` to its metadata, at the next revision (a new object: stored ones never change). */
export function atNextRevision(storage: Storage, obj: Obj, changes: Record<string, unknown> = {}): Obj {
  return { ...obj, metadata: { ...obj.metadata, ...changes, resourceVersion: String(storage.nextRevision()) } };
}
