import { filter, type OperatorFunction } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import type { Delta, DeltaType, KubeObject } from '../types.ts';

const DELTA_TYPES: ReadonlySet<string> = new Set<DeltaType>(['Added', 'Updated', 'Deleted', 'Replaced', 'Sync']);

/**
 * Keeps the deltas of the given types, narrowing `type` to them.
 *
 * Caveat: `Updated` alone misses resync (`Sync`) and unchanged-relist (`Replaced`) re-deliveries;
 * add them if you rely on periodic re-delivery. Throws `InvalidOptionsError` at the call for no
 * type or an unknown one.
 *
 * @example
 * informer.events$.pipe(ofType('Added', 'Deleted')).subscribe((d) => console.log(d.type, d.key));
 */
export function ofType<T extends KubeObject, D extends DeltaType>(
  ...types: [D, ...D[]]
): OperatorFunction<Delta<T>, Delta<T> & { type: D }> {
  if (types.length === 0) throw new InvalidOptionsError('ofType needs at least one delta type');
  for (const t of types)
    if (!DELTA_TYPES.has(t))
      throw new InvalidOptionsError(`ofType: unknown delta type ${JSON.stringify(t)} (Added, Updated, Deleted, Replaced, Sync)`);
  const wanted: ReadonlySet<DeltaType> = new Set(types);
  return filter((d): d is Delta<T> & { type: D } => wanted.has(d.type));
}
