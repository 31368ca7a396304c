import { filter, type OperatorFunction } from 'rxjs';
import type { Delta, DeltaType, KubeObject } from '../types.ts';

/**
 * Keeps the deltas of the given types.
 *
 * @example
 * informer.events$.pipe(ofType('Added', 'Deleted')).subscribe(...)
 */
export function ofType<T extends KubeObject>(...types: DeltaType[]): OperatorFunction<Delta<T>, Delta<T>> {
  const wanted = new Set(types);
  return filter((d) => wanted.has(d.type));
}
