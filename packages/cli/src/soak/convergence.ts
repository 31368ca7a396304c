/**
 * The soak's judge: object identities (key, UID, resourceVersion) of the server and of a client,
 * the differences between them, and a handler's view rebuilt only from the events it received.
 */
import type { KubeObject } from '@rxinformer/core';

/** What identifies a version of an object: its UID and resourceVersion, by `namespace/name` key. */
export interface Identity {
  uid: string;
  resourceVersion: string;
}

/** Identities by key (`namespace/name`, or `name` for cluster-scoped objects). */
export type IdentityMap = Map<string, Identity>;

/** The key client-go and rxinformer use: `namespace/name`, or `name` without a namespace. */
export function objectKey(obj: KubeObject): string {
  const meta = obj.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
}

/** The identity of an object (missing fields become `""`, which never equals a real one). */
export function identityOf(obj: KubeObject): Identity {
  return { uid: obj.metadata?.uid ?? '', resourceVersion: obj.metadata?.resourceVersion ?? '' };
}

/** The identities of a list of objects. */
export function identities(objects: Iterable<KubeObject>): IdentityMap {
  const map: IdentityMap = new Map();
  for (const obj of objects) map.set(objectKey(obj), identityOf(obj));
  return map;
}

/** How a client's view differs from the server's. All zero means equal. */
export interface ViewDiff {
  /** Keys on the server, absent from the view. */
  missing: number;
  /** Keys in the view, absent from the server. */
  extra: number;
  /** Same key, another UID (a recreation the view missed). */
  wrongUid: number;
  /** Same key and UID, another resourceVersion (a stale object). */
  staleVersion: number;
  /** A few of the differing keys with what differs, for failure reports. */
  samples: string[];
}

/** True when `diff` found no difference. */
export function isEqualView(diff: ViewDiff): boolean {
  return diff.missing === 0 && diff.extra === 0 && diff.wrongUid === 0 && diff.staleVersion === 0;
}

/**
 * Compares a client's view with the server's state by key, UID and resourceVersion.
 *
 * @example
 * const diff = diffViews(identities(sim.storage.list('pods')), identities(informer.getStore().list()));
 * if (!isEqualView(diff)) console.log(diff.samples);
 */
export function diffViews(expected: IdentityMap, actual: IdentityMap, maxSamples = 5): ViewDiff {
  const diff: ViewDiff = { missing: 0, extra: 0, wrongUid: 0, staleVersion: 0, samples: [] };
  const sample = (text: string) => {
    if (diff.samples.length < maxSamples) diff.samples.push(text);
  };
  for (const [key, want] of expected) {
    const got = actual.get(key);
    if (!got) {
      diff.missing++;
      sample(`missing ${key}`);
    } else if (got.uid !== want.uid) {
      diff.wrongUid++;
      sample(`${key}: uid ${got.uid} instead of ${want.uid}`);
    } else if (got.resourceVersion !== want.resourceVersion) {
      diff.staleVersion++;
      sample(`${key}: rv ${got.resourceVersion} instead of ${want.resourceVersion}`);
    }
  }
  for (const key of actual.keys()) {
    if (!expected.has(key)) {
      diff.extra++;
      sample(`extra ${key}`);
    }
  }
  return diff;
}

/** One-line summary of a diff, e.g. `3 missing, 1 stale (missing a/p-1, …)`. */
export function describeDiff(diff: ViewDiff): string {
  const parts = [
    ['missing', diff.missing],
    ['extra', diff.extra],
    ['wrong UID', diff.wrongUid],
    ['stale', diff.staleVersion],
  ]
    .filter(([, n]) => (n as number) > 0)
    .map(([what, n]) => `${n} ${what}`);
  return parts.length === 0 ? 'equal' : `${parts.join(', ')} (${diff.samples.join('; ')})`;
}

/**
 * A handler's view of the world, rebuilt only from the notifications it received. An update whose
 * new object has another UID than the old one (given, or else the one the view holds) is a
 * violation: a recreation must arrive as a delete then an add.
 *
 * @example
 * const view = new HandlerView('fifo');
 * informer.addEventHandler({ onAdd: (o) => view.add(o), onUpdate: (a, b) => view.update(b, a), onDelete: (o) => view.delete(o) });
 */
export class HandlerView {
  readonly name: string;
  readonly #objects: IdentityMap = new Map();
  /** Updates that changed the UID of a key. */
  uidViolations = 0;
  /** Notifications received. */
  events = 0;
  /** A few of the violations, for reports. */
  readonly violationSamples: string[] = [];

  constructor(name: string) {
    this.name = name;
  }

  /** An add (a new key, or a recreated object after its delete). An add over a key the view holds is a missed delete. */
  add(obj: KubeObject): void {
    this.events++;
    const key = objectKey(obj);
    const held = this.#objects.get(key);
    if (held !== undefined && held.uid !== identityOf(obj).uid)
      this.#violation(`${key}: add of uid ${identityOf(obj).uid} over uid ${held.uid}, no delete between`);
    this.#objects.set(key, identityOf(obj));
  }

  /**
   * An update. A violation when the UID differs from what this handler holds for the key (from the
   * events it received), and also from the library's `oldObj` when it passes one: both must be the
   * same incarnation as the new object.
   */
  update(obj: KubeObject, oldObj?: KubeObject): void {
    this.events++;
    const key = objectKey(obj);
    const next = identityOf(obj);
    const held = this.#objects.get(key)?.uid;
    const passed = oldObj ? identityOf(oldObj).uid : undefined;
    if (held !== undefined && held !== next.uid) this.#violation(`${key}: update from uid ${held} to ${next.uid}`);
    else if (passed !== undefined && passed !== next.uid)
      this.#violation(`${key}: update whose old object has uid ${passed}, new ${next.uid}`);
    this.#objects.set(key, next);
  }

  #violation(sample: string): void {
    this.uidViolations++;
    if (this.violationSamples.length < 5) this.violationSamples.push(sample);
  }

  /** A delete (also a tombstone). */
  delete(obj: KubeObject): void {
    this.events++;
    this.#objects.delete(objectKey(obj));
  }

  /** The view's identities now. */
  identities(): IdentityMap {
    return new Map(this.#objects);
  }
}
