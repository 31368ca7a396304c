/**
 * Status conditions (`metav1.Condition`) set, found and removed as apimachinery's `meta` package
 * does (`SetStatusCondition`, `FindStatusCondition`, `RemoveStatusCondition`,
 * `IsStatusCondition…`): `lastTransitionTime` moves only when the status changes; reason, message
 * and `observedGeneration` are updated in place. The writers change the array they are given, so
 * they work on an immer draft (`update(obj, (d) => setStatusCondition(statusConditions(d), …))`)
 * and on a plain array alike.
 */
import type { SchedulerLike } from 'rxjs';
import { InvalidObjectError, InvalidOptionsError } from '@rxinformer/core';

/** A condition's status, as `metav1.ConditionStatus`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One aspect of an object's state, as `metav1.Condition` is on the wire. */
export interface Condition {
  /** What the condition is about, in CamelCase (`Ready`) or `example.com/CamelCase`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: ConditionStatus;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** When the status last changed: RFC 3339 in seconds, as the server stores `metav1.Time` (`2026-03-01T10:00:00Z`). */
  lastTransitionTime: string;
  /** Why, in CamelCase; never empty. */
  reason: string;
  /** Why, for people; may be empty. */
  message: string;
}

/** What `setStatusCondition` is given: a condition whose `lastTransitionTime` (default: now, when the status changes) and `message` (default `''`) may be left out. */
export interface ConditionInput {
  /** What the condition is about (`Ready`). Required, not empty. */
  type: string;
  /** `True`, `False` or `Unknown`. Required. */
  status: ConditionStatus;
  /** Why, in CamelCase. Required, not empty. */
  reason: string;
  /** Why, for people. Default `''`. */
  message?: string;
  /** The `metadata.generation` it was computed from. Default: none (a set without it removes the field, as apimachinery's zero does). */
  observedGeneration?: number;
  /** The transition's time when the status changes (RFC 3339). Default: the clock's now, in whole seconds. */
  lastTransitionTime?: string;
}

/** Options of `setStatusCondition`. */
export interface SetConditionOptions {
  /** Whose `now()` (ms since the epoch) is the transition's time. Default: `Date.now`. A `TestScheduler` makes it virtual. */
  scheduler?: Pick<SchedulerLike, 'now'>;
}

const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Sets the condition of `condition.type` in `conditions`, changing the array in place, and says
 * whether anything changed. A new type is appended with `lastTransitionTime` now (unless given).
 * An existing one keeps its `lastTransitionTime` unless its status changes; its reason, message
 * and `observedGeneration` take the new values.
 *
 * @example
 * await widgets.updateStatus(widget, (d) =>
 *   void setStatusCondition(statusConditions(d), {
 *     type: 'Ready', status: 'True', reason: 'Sized', observedGeneration: d.metadata?.generation,
 *   }),
 * );
 *
 * Caveat: it changes `conditions`: on an object from a cache (frozen), use it in a draft, as above.
 * A draft in which nothing changed sends nothing.
 */
export function setStatusCondition(conditions: Condition[], condition: ConditionInput, options: SetConditionOptions = {}): boolean {
  checkCondition(condition);
  const now = () => condition.lastTransitionTime ?? conditionTime(options.scheduler?.now() ?? Date.now());
  const message = condition.message ?? '';
  const existing = findStatusCondition(conditions, condition.type);
  if (existing === undefined) {
    const { type, status, observedGeneration, reason } = condition;
    conditions.push({
      type,
      status,
      ...(observedGeneration !== undefined && { observedGeneration }),
      lastTransitionTime: now(),
      reason,
      message,
    });
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = now();
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (existing.observedGeneration !== condition.observedGeneration) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * Removes every condition of `type` from `conditions` (in place); true when there was one.
 *
 * @example
 * await widgets.updateStatus(widget, (d) => void removeStatusCondition(statusConditions(d), 'Degraded'));
 */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  let removed = false;
  for (let i = conditions.length - 1; i >= 0; i--) {
    if (conditions[i].type !== type) continue;
    conditions.splice(i, 1);
    removed = true;
  }
  return removed;
}

/**
 * The condition of `type` (the first, should there be two), or undefined. Within a draft, it is
 * the draft's: changing it changes the object.
 *
 * @example
 * const ready = findStatusCondition(widget.status?.conditions, 'Ready');
 * if (ready?.observedGeneration !== widget.metadata?.generation) return; // not caught up yet
 */
export function findStatusCondition<C extends Condition>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * True when the condition of `type` is there with `status`.
 *
 * @example
 * isStatusConditionPresentAndEqual(widget.status?.conditions, 'Ready', 'Unknown');
 */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/**
 * True when the condition of `type` is there and `True`.
 *
 * @example
 * if (isStatusConditionTrue(widget.status?.conditions, 'Ready')) return;
 */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/**
 * True when the condition of `type` is there and `False` (absent is neither true nor false).
 *
 * @example
 * if (isStatusConditionFalse(widget.status?.conditions, 'Ready')) report(widget);
 */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}

/**
 * `obj.status.conditions`, made an empty array (and `status` an empty object) when missing: the
 * array the writers take, in a draft.
 *
 * @example
 * await widgets.updateStatus(widget, (d) => void setStatusCondition(statusConditions(d), ready));
 *
 * Caveat: it adds `status: { conditions: [] }` to an object that had none; in a draft where no
 * condition is then set, that empty array is a change the patch sends.
 */
export function statusConditions(obj: { status?: object }): Condition[] {
  const status = (obj.status ??= {}) as { conditions?: Condition[] };
  return (status.conditions ??= []);
}

/** `ms` as RFC 3339 in whole seconds (`2026-03-01T10:00:00Z`): what kube-apiserver stores a `metav1.Time` as. */
function conditionTime(ms: number): string {
  if (!Number.isFinite(ms)) throw new InvalidOptionsError(`the scheduler's now() must be a finite number of ms, not ${ms}`);
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function checkCondition(c: ConditionInput): void {
  const bad = (why: string) => new InvalidObjectError(`invalid condition ${JSON.stringify(c?.type)}: ${why}`, c);
  if (typeof c !== 'object' || c === null) throw new InvalidObjectError('a condition must be an object', c);
  if (typeof c.type !== 'string' || c.type === '') throw bad('type must be a non-empty string');
  if (!STATUSES.includes(c.status)) throw bad(`status must be True, False or Unknown, not ${JSON.stringify(c.status)}`);
  if (typeof c.reason !== 'string' || c.reason === '') throw bad('reason must be a non-empty string');
  if (c.message !== undefined && typeof c.message !== 'string') throw bad('message must be a string');
  if (c.observedGeneration !== undefined && !(Number.isSafeInteger(c.observedGeneration) && c.observedGeneration >= 0))
    throw bad(`observedGeneration must be an integer >= 0, not ${c.observedGeneration}`);
  if (c.lastTransitionTime !== undefined && !(RFC3339.test(c.lastTransitionTime) && !Number.isNaN(Date.parse(c.lastTransitionTime))))
    throw bad(`lastTransitionTime must be an RFC 3339 time, not ${JSON.stringify(c.lastTransitionTime)}`);
}
