import { distinctUntilChanged, map, type OperatorFunction } from 'rxjs';
import type { KubeObject, Store } from '../types.ts';

/**
 * Derives a value from each store snapshot and emits it only when it changes (by `compare`,
 * default `===`). Suits Angular's async pipe or `toSignal`.
 *
 * @example
 * const running$ = informer.store$.pipe(selectFromStore((s) => s.list().filter(isRunning).length));
 */
export function selectFromStore<T extends KubeObject, R>(project: (store: Store<T>) => R, compare?: (a: R, b: R) => boolean): OperatorFunction<Store<T>, R> {
  return (source) => source.pipe(map(project), distinctUntilChanged(compare));
}
