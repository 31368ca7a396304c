/** Helpers on objects: owner references, finalizers and status conditions. */
// Owners and finalizers
export { AlreadyOwnedError, controllerOf, InvalidOwnerError, ownerKey, ownerReferenceTo, setControllerReference } from './owners.ts';
export type { OwnerKind, OwnerReference } from './owners.ts';
export { finalizer } from './finalizer.ts';
export type { FinalizerHandlers, FinalizerOutcome, FinalizerRan, FinalizerSkipped } from './finalizer.ts';

// Status conditions
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  statusConditions,
} from './conditions.ts';
export type { Condition, ConditionInput, ConditionStatus, SetConditionOptions } from './conditions.ts';
