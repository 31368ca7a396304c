import { distinctUntilChanged, map, type OperatorFunction } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import type { KubeObject, Store } from '../types.ts';

/**
 * Derives a value from each store snapshot and emits it only when it changes — by `compare`,
 * default `===`. Suits Angular's async pipe and `toSignal`, which re-render on every emission.
 *
 * Caveat: `project` runs on every snapshot, so keep it cheap (use `byIndex` rather than scanning
 * `list()` in a large cache), and return primitives or cached objects: a new array each time is
 * never `===`, so pass a `compare` (say, element-wise) for those.
 *
 * @example
 * const running$ = informer.store$.pipe(selectFromStore((s) => s.list().filter(isRunning).length));
 * const pod$ = informer.store$.pipe(selectFromStore((s) => s.get('default/web'))); // frozen objects: === tells changes
 */
export function selectFromStore<T extends KubeObject, R>(
  project: (store: Store<T>) => R,
  compare?: (previous: R, current: R) => boolean,
): OperatorFunction<Store<T>, R> {
  if (typeof project !== 'function') throw new InvalidOptionsError('selectFromStore needs a project function');
  if (compare !== undefined && typeof compare !== 'function') throw new InvalidOptionsError('selectFromStore: compare must be a function');
  return (source) => source.pipe(map(project), distinctUntilChanged(compare));
}
