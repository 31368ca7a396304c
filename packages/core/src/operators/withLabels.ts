import { concatMap, type OperatorFunction } from 'rxjs';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../labelSelector.ts';
import type { Delta, KubeObject } from '../types.ts';

/**
 * Keeps the deltas of objects matching a label selector, like a server-side selector: an update
 * that brings an object into the selection is delivered as `Added`, one that takes it out as
 * `Deleted` (with the new object). The selector string is parsed at the call
 * (`LabelSelectorError` for a bad one).
 *
 * @example
 * informer.events$.pipe(withLabels('app=web,tier in (frontend)'))
 */
export function withLabels<T extends KubeObject>(selector: string | LabelSelector): OperatorFunction<Delta<T>, Delta<T>> {
  const parsed = typeof selector === 'string' ? parseLabelSelector(selector) : selector;
  const matches = (o: T | undefined) => o !== undefined && matchesLabels(parsed, o.metadata?.labels);
  return concatMap((d): Delta<T>[] => {
    const now = matches(d.object);
    if (d.type !== 'Updated' && d.type !== 'Replaced' && d.type !== 'Sync') return now ? [d] : [];
    const before = matches(d.oldObject);
    if (before && now) return [d];
    if (now) return [{ ...d, type: 'Added', oldObject: undefined }];
    if (before) return [{ ...d, type: 'Deleted', oldObject: undefined }];
    return [];
  });
}
