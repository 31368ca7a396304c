/** Helpers on objects: owner references and finalizers. */
// Owners and finalizers
export { AlreadyOwnedError, controllerOf, InvalidOwnerError, ownerKey, ownerReferenceTo, setControllerReference } from './owners.ts';
export type { OwnerKind, OwnerReference } from './owners.ts';
export { finalizer } from './finalizer.ts';
export type { FinalizerHandlers, FinalizerOutcome, FinalizerRan, FinalizerSkipped } from './finalizer.ts';
