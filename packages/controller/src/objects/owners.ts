/**
 * Owner references, as controller-runtime's `controllerutil` sets them: the controlling owner of an
 * object (garbage collection deletes it with its owner), and the owner's key to enqueue when an
 * owned object changes.
 */
import { InvalidObjectError, RxInformerError, type KubeObject } from '@rxinformer/core';
import { pathSegmentError } from '@rxinformer/core/http';

/** One entry of `metadata.ownerReferences`. */
export interface OwnerReference {
  /** The owner's `apiVersion`. */
  apiVersion: string;
  /** The owner's `kind`. */
  kind: string;
  /** The owner's name (same namespace as the owned object, or cluster-scoped). */
  name: string;
  /** The owner's uid: a recreated owner is another owner. */
  uid: string;
  /** True for the one owner that manages the object. */
  controller?: boolean;
  /** True: foreground deletion of the owner waits for this object to go. */
  blockOwnerDeletion?: boolean;
}

/** `setControllerReference` refused: another controller owns the object already. */
export class AlreadyOwnedError extends RxInformerError {
  /** Always `AlreadyOwnedError`: set as a string, so it survives minification. */
  override readonly name: string = 'AlreadyOwnedError';
  /** The controller owner already there. */
  readonly owner: OwnerReference;

  constructor(object: KubeObject, owner: OwnerReference) {
    super('AlreadyOwned', `${describe(object)} is already controlled by ${owner.kind} "${owner.name}" (uid ${owner.uid})`);
    this.owner = owner;
  }
}

/** `setControllerReference` refused an owner that cannot own the object: in another namespace, or namespaced over a cluster-scoped object. */
export class InvalidOwnerError extends RxInformerError {
  /** Always `InvalidOwnerError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidOwnerError';
  constructor(message: string) {
    super('InvalidOwner', message);
  }
}

/**
 * Makes `owner` the controller of `obj` (`controller: true`, `blockOwnerDeletion: true`), changing
 * `obj` in place (an immer draft, or an object being built) and returning it. An owner reference to
 * the same owner (same apiVersion group, kind and name) is replaced.
 *
 * Throws `AlreadyOwnedError` when another controller owns `obj`, `InvalidOwnerError` when the owner
 * is in another namespace or is namespaced while `obj` is cluster-scoped, `InvalidObjectError` when
 * the owner lacks apiVersion, kind, name or uid.
 *
 * @example
 * await cms.createOrUpdate(copy, (d) => { setControllerReference(source, d); d.data = source.data; });
 */
export function setControllerReference<T extends KubeObject>(owner: KubeObject, obj: T): T {
  const ref = ownerReferenceTo(owner);
  const ownerNs = owner.metadata?.namespace || undefined;
  const objNs = obj.metadata?.namespace || undefined;
  if (ownerNs !== undefined && objNs === undefined)
    throw new InvalidOwnerError(`cluster-scoped ${describe(obj)} cannot be owned by namespaced ${describe(owner)}`);
  if (ownerNs !== undefined && ownerNs !== objNs)
    throw new InvalidOwnerError(`cross-namespace owner references are not allowed: ${describe(owner)} cannot own ${describe(obj)}`);
  const existing = controllerOf(obj);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(obj, existing);
  obj.metadata ??= {};
  const refs = ((obj.metadata.ownerReferences ?? []) as OwnerReference[]).filter((r) => !sameOwner(r, ref));
  obj.metadata.ownerReferences = [...refs, { ...ref, controller: true, blockOwnerDeletion: true }];
  return obj;
}

/**
 * A (non-controller) owner reference to `owner`, for `metadata.ownerReferences`.
 *
 * @example
 * obj.metadata.ownerReferences = [ownerReferenceTo(parent)];
 */
export function ownerReferenceTo(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata ?? {};
  if (!apiVersion || !kind || !name || !uid)
    throw new InvalidObjectError('an owner needs apiVersion, kind, metadata.name and metadata.uid (read it from the server)', owner);
  return { apiVersion, kind, name, uid };
}

/**
 * The owner reference marked `controller: true`, if any (`metav1.GetControllerOf`). Reads
 * what the server sent without trusting it: a missing or malformed list gives none.
 */
export function controllerOf(obj: KubeObject | undefined): OwnerReference | undefined {
  const refs: unknown = obj?.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return (refs as (OwnerReference | null)[]).find((r) => r?.controller === true) ?? undefined;
}

/**
 * Which owners `ownerKey` looks for. A `ResourceDescriptor` with its `kind` is one (its `group` and
 * `namespaced` are read).
 */
export interface OwnerKind {
  /** The owner's kind. Required. */
  kind: string;
  /** The owner's API group (`''`: the core group). Default: the group of `apiVersion`, or any group. */
  group?: string;
  /** An apiVersion whose group the owner's must share (the version is not compared). Default: any. */
  apiVersion?: string;
  /** False for a cluster-scoped owner: its key is its name. Default true. */
  namespaced?: boolean;
}

/**
 * The `namespace/name` key (as `metaNamespaceKeyFunc` makes it) of `obj`'s controller, when it is of
 * `owner`'s kind and group: what to enqueue when an owned object changes (the builder's `owns`).
 * A namespaced owner shares the object's namespace (none when `obj` has none); a cluster-scoped
 * owner's key is its name. Undefined for no controller, another kind or group, or a malformed reference.
 *
 * Caveat: throws `InvalidPathSegmentError` when the reference's name is not one path segment (`.`,
 * `..`, holding `/` or `%`). kube-apiserver accepts such a reference, but its key would name
 * another resource: `default/.` is the collection in a URL, and a cluster-scoped owner's `a/b`
 * reads as namespace `a`, name `b`. The builder's `owns()` reports it on the controller's `errors$`.
 *
 * @example
 * cmInformer.addEventHandler({ onUpdate: (_, cm) => { const k = ownerKey(cm, { kind: 'Replicator', apiVersion: 'example.com/v1' }); if (k) queue.add(k); } });
 * ownerKey(pod, replicaSets); // a descriptor: group `apps`, namespaced
 */
export function ownerKey(obj: KubeObject | undefined, owner: OwnerKind): string | undefined {
  const ref = controllerOf(obj);
  if (ref === undefined || ref.kind !== owner.kind || typeof ref.apiVersion !== 'string') return undefined;
  if (typeof ref.name !== 'string' || ref.name === '') return undefined;
  const group = owner.group ?? (owner.apiVersion === undefined ? undefined : groupOf(owner.apiVersion));
  if (group !== undefined && groupOf(ref.apiVersion) !== group) return undefined;
  const invalid = pathSegmentError('owner reference name', ref.name);
  if (invalid !== undefined) throw invalid;
  if (owner.namespaced === false) return ref.name;
  const ns = obj?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? `${ns}/${ref.name}` : undefined;
}

/** Same owner as controller-runtime compares them: API group (not version), kind and name. */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function describe(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return `${obj.kind ?? 'object'} "${m.namespace ? `${m.namespace}/` : ''}${m.name ?? m.generateName ?? ''}"`;
}
