import { filter, type OperatorFunction } from 'rxjs';
import type { Delta, KubeObject } from '../types.ts';

/**
 * Keeps the deltas of objects in the given namespaces (`""` for cluster-scoped objects).
 *
 * @example
 * informer.events$.pipe(inNamespace('default', 'kube-system'))
 */
export function inNamespace<T extends KubeObject>(...namespaces: string[]): OperatorFunction<Delta<T>, Delta<T>> {
  const wanted = new Set(namespaces);
  return filter((d) => wanted.has(d.object.metadata?.namespace ?? ''));
}
