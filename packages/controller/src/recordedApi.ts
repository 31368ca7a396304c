/**
 * A `ResourceApi` that tells a listener what each stored write left on the server: the written
 * object as answered (its resourceVersion), or that the object is gone. The controller builder's
 * read-your-writes rests on it; reads and dry runs are passed through unrecorded.
 */
import type { KubeObject, Status } from '@rxinformer/core';
import { refOf, type ObjectRef, type ResourceApi, type WriteOptions } from './resourceApi.ts';

/** What one write left: the object as the server answered it, or `gone` (deleted at once). */
export type WriteOutcome<T extends KubeObject> =
  | {
      /** The object as the server answered the write. */
      readonly object: T;
    }
  | {
      /** The object deleted at once. */
      readonly gone: ObjectRef;
    };

/**
 * `api` with each stored write's outcome given to `onWrite` once the server answered it. A delete
 * answered with a Status, or with an object that carries no `deletionTimestamp` (the server
 * returned what it removed), is `gone`; one answered with an object still being finalized is that
 * object.
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
      if (o?.dryRun !== true) onWrite(stillThere(answer) ? { object: answer } : { gone: refOf(ref) });
      return answer;
    },
  };
}

/** True when a delete answered with the object still there, being finalized or gracefully ended. */
function stillThere<T extends KubeObject>(answer: T | Status): answer is T {
  return (answer as KubeObject)?.kind !== 'Status' && typeof (answer as KubeObject)?.metadata?.deletionTimestamp === 'string';
}
