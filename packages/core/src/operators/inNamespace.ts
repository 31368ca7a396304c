import { filter, type MonoTypeOperatorFunction } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { splitMetaNamespaceKey } from '../store/keys.ts';
import { objectOf, type Delta, type KubeObject } from '../types.ts';

/**
 * Keeps the deltas of objects in the given namespaces; `''` stands for cluster-scoped objects.
 * Tombstones are judged by the last known object.
 *
 * Caveat: a cluster-wide informer still lists and watches every namespace; to watch fewer objects,
 * scope the informer instead (`createInformerFactory(source, { namespace })`). Throws
 * `InvalidOptionsError` at the call for no namespace or a non-string.
 *
 * @example
 * informer.events$.pipe(inNamespace('default', 'kube-system'))
 */
export function inNamespace<T extends KubeObject>(...namespaces: [string, ...string[]]): MonoTypeOperatorFunction<Delta<T>> {
  if (namespaces.length === 0) throw new InvalidOptionsError('inNamespace needs at least one namespace');
  for (const ns of namespaces)
    if (typeof ns !== 'string') throw new InvalidOptionsError(`inNamespace: a namespace must be a string, got ${String(ns)}`);
  const wanted = new Set(namespaces);
  return filter((d) => wanted.has(objectOf(d)?.metadata?.namespace ?? splitMetaNamespaceKey(d.key).namespace ?? ''));
}
