import { concatMap, type MonoTypeOperatorFunction } from 'rxjs';
import {
  fromLabelSelectorObject,
  labelSelectorToString,
  matchesLabels,
  parseLabelSelector,
  type LabelSelector,
  type LabelSelectorObject,
} from '../labels/labelSelector.ts';
import { objectOf, type Delta, type KubeObject } from '../types.ts';

/**
 * Keeps the deltas of objects matching a label selector, the way a server-side selector behaves:
 *
 * - `Added`, `Deleted` (tombstones too, by the last known object) and `Sync` pass when the object matches;
 * - an `Updated` / `Replaced` whose old and new objects both match passes unchanged;
 * - one that brings the object into the selection arrives as `Added` (no `oldObject`);
 * - one that takes it out arrives as `Deleted` carrying the new, no longer matching object —
 *   as the API server sends DELETED to a watch whose selector the object left.
 *
 * So a consumer of the filtered stream sees every matching object appear once and disappear once.
 * The selector is a string (`'app=web,tier in (fe)'`), a parsed `LabelSelector`, or the structured
 * `{ matchLabels, matchExpressions }` form; it is parsed and checked at the call
 * (`LabelSelectorError`).
 *
 * Caveat: `delta.store` is still the whole cache, not the filtered view: an object delivered as
 * `Deleted` because it left the selection is still in the store.
 *
 * @example
 * informer.events$.pipe(withLabels('app=web,tier in (frontend)')).subscribe(render);
 */
export function withLabels<T extends KubeObject>(
  selector: string | LabelSelector | LabelSelectorObject,
): MonoTypeOperatorFunction<Delta<T>> {
  let parsed: LabelSelector;
  if (typeof selector === 'string') parsed = parseLabelSelector(selector);
  else if (Array.isArray(selector)) parsed = parseLabelSelector(labelSelectorToString(selector as LabelSelector));
  else parsed = fromLabelSelectorObject(selector as LabelSelectorObject);
  const matches = (o: T | undefined) => o !== undefined && matchesLabels(parsed, o.metadata?.labels);
  return concatMap((d): Delta<T>[] => {
    const now = matches(objectOf(d));
    if (d.type !== 'Updated' && d.type !== 'Replaced') return now ? [d] : [];
    const before = matches(d.oldObject);
    if (before && now) return [d];
    const { key, object, store } = d;
    if (now) return [{ type: 'Added', key, object, isInInitialList: false, store }];
    if (before) return [{ type: 'Deleted', key, deleted: { key, lastKnown: object, finalStateUnknown: false }, store }];
    return [];
  });
}
