/**
 * One resource's current objects with their keys kept sorted, and the sorted-key helpers that
 * lists and snapshots page through (binary search, ranges within a namespace prefix, merging).
 */
import type { KubeObject } from '@rxinformer/core';

/** One resource's current objects by key, and their keys in order (for lists and snapshots). */
export class Collection {
  readonly objects = new Map<string, KubeObject>();
  readonly sorted: string[] = [];

  insert(key: string): void {
    const n = this.sorted.length;
    if (n === 0 || this.sorted[n - 1] < key) this.sorted.push(key);
    else this.sorted.splice(lowerBound(this.sorted, key), 0, key);
  }

  remove(key: string): void {
    const i = lowerBound(this.sorted, key);
    if (this.sorted[i] === key) this.sorted.splice(i, 1);
  }
}

/** Binary search: index of the first element of sorted `arr` that is >= `key`. */
export function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest string greater than every string starting with `prefix`. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** The keys of sorted `sorted` from the first >= `from`, within `prefix` when given. */
export function* rangeKeys(sorted: readonly string[], from: string, prefix?: string): Generator<string> {
  const start = lowerBound(sorted, prefix !== undefined && prefix > from ? prefix : from);
  for (let i = start; i < sorted.length; i++) {
    const k = sorted[i];
    if (prefix !== undefined && !k.startsWith(prefix)) return;
    yield k;
  }
}

/** The union of two sorted key lists, sorted. */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
