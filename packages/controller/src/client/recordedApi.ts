/**
 * A `ResourceApi` that tells a listener what each stored write left on the server: the written
 * object as answered (its resourceVersion), or that the object is gone. The controller builder's
 * read-your-writes rests on it; reads and dry runs are passed through unrecorded.
 */
import type { KubeObject, Status } from '@rxinformer/core';
import { refOf, type ObjectRef, type ResourceApi, type WriteOptions } from './resourceApi.ts';

/** What one write left: the object as the server answered it, or `gone` (a delete: gone or going). */
export type WriteOutcome<T extends KubeObject> =
  | {
      /** The object as the server answered the write. */
      readonly object: T;
    }
  | {
      /** The object a delete was answered for: gone, or going (finalizers, a grace period). */
      readonly gone: ObjectRef;
      /** Its uid, when the answer told it (the object's, or the Status's `details.uid`). */
      readonly uid?: string;
    };

/**
 * `api` with each stored write's outcome given to `onWrite` once the server answered it. A delete
 * is `gone` whatever it was answered with — a Status, the object removed, or the object marked
 * with a `deletionTimestamp` — since the answer does not tell whether the object is still there:
 * kube-apiserver answers the DELETE of a pod deleted at once (unscheduled, or its containers
 * ended) with the pod marked for deletion, though it is already gone, and no update follows.
 *
 * @example
 * const cms = recordedApi(resourceApi(client, configMaps), (outcome) => log.push(outcome));
 */
export function recordedApi<T extends KubeObject>(api: ResourceApi<T>, onWrite: (outcome: WriteOutcome<T>) => void): ResourceApi<T> {
  const stored = async <R extends T>(o: WriteOptions | undefined, write: Promise<R>): Promise<R> => {
    const object = await write;
    if (o?.dryRun !== true) onWrite({ object });
    return object;
  };
  return {
    resource: api.resource,
    client: api.client,
    get: (ref, o) => api.get(ref, o),
    list: (o) => api.list(o),
    listAll: (o) => api.listAll(o),
    create: (obj, o) => stored(o, api.create(obj, o)),
    replace: (obj, o) => stored(o, api.replace(obj, o)),
    update: (obj, recipe, o) => stored(o, api.update(obj, recipe, o)),
    updateStatus: (obj, recipe, o) => stored(o, api.updateStatus(obj, recipe, o)),
    jsonPatch: (ref, operations, o) => stored(o, api.jsonPatch(ref, operations, o)),
    mergePatch: (ref, patch, o) => stored(o, api.mergePatch(ref, patch, o)),
    apply: (obj, o) => stored(o, api.apply(obj, o)),
    applyStatus: (obj, o) => stored(o, api.applyStatus(obj, o)),
    async createOrUpdate(obj, recipe, o) {
      const outcome = await api.createOrUpdate(obj, recipe, o);
      if (o?.dryRun !== true) onWrite({ object: outcome.object });
      return outcome;
    },
    async delete(ref, o) {
      const answer = await api.delete(ref, o);
      if (o?.dryRun !== true) onWrite(uidOf(answer) === undefined ? { gone: refOf(ref) } : { gone: refOf(ref), uid: uidOf(answer) });
      return answer;
    },
  };
}

/** The uid a delete's answer names: the object's, or a Status's `details.uid`. */
function uidOf(answer: KubeObject | Status): string | undefined {
  const uid = (answer as KubeObject)?.kind === 'Status' ? (answer as Status).details?.uid : (answer as KubeObject)?.metadata?.uid;
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}
