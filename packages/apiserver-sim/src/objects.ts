/**
 * Object semantics on top of the storage, as the real API server applies them: metadata filled on
 * create (uid, resourceVersion, creationTimestamp, generation, generateName, managedFields),
 * optimistic concurrency on update, graceful deletion and finalizers, namespace lifecycle and
 * CRD-driven registration. The HTTP layer and the load generator both write through here, so a
 * bad request is refused before anything is stored.
 */
import type { KubeObject, ObjectMeta } from '@rxinformer/core';
import { jsonEqual, sameOwnership, withManagedFields, type ManagedFieldsEntry } from './managedFields.ts';
import type { Random } from './random.ts';
import { withUpdatedFields } from './updateOwnership.ts';
import { CRD_KEY, gvrKey, groupVersion, resourcesOfCrd, type ResourceInfo, type ResourceRegistry } from './resources.ts';
import { errors, type StatusCause } from './status.ts';
import { objectKey, type Storage } from './storage.ts';
import { generateNameSuffix, validateObjectName } from './validation.ts';

/** A resource: its `ResourceInfo`, `pods`, `deployments.apps` or `apps/v1/deployments`. */
export type ResourceRef = ResourceInfo | string;

/** An object to write: `apiVersion`, `kind`, `metadata`, and any other field (`spec`, `data`…). */
export type ObjectInput = KubeObject | (KubeObject & Record<string, unknown>);

/** Options of `ObjectStore`. */
export interface ObjectStoreOptions {
  /** Revisions, history and watch fan-out. */
  storage: Storage;
  /** The resources served (built-ins and CRDs). */
  registry: ResourceRegistry;
  /** Seeded randomness (UIDs, generated names). */
  random: Random;
  /** Refuse writes into namespaces that do not exist (default true, like a real server). */
  namespaceLifecycle?: boolean;
  /** Grace period used when a pod delete names none, in seconds (default 0: the simulated kubelet is instant). */
  defaultPodGracePeriodSeconds?: number;
  /** Milliseconds per second of grace period (default 1000; tests shrink it). */
  graceMsPerSecond?: number;
  /**
   * Milliseconds between a namespace's DELETE (which marks it Terminating) and the simulated
   * namespace controller's pass that deletes its contents, then the namespace (default 0: the next
   * turn of the event loop, after the DELETE was answered).
   */
  namespaceDeletionDelayMs?: number;
}

/** The parts of DeleteOptions the simulator honours. */
export interface DeleteOptions {
  /** Seconds before a pod is really deleted; 0 = at once. */
  gracePeriodSeconds?: number;
  /** Delete only if the stored object still has this UID / resource version (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** `Foreground`, `Background` or `Orphan`. */
  propagationPolicy?: string;
  /** `["All"]`: validate, change nothing. */
  dryRun?: string[];
}

/** Options of a write. */
export interface WriteOptions {
  /** `fieldManager` of the request (default: derived from the operation). */
  fieldManager?: string;
  /**
   * The caller hands the object over and will never mutate it (nor anything it shares with a stored
   * object): no defensive copy is made (default false). The HTTP layer sets it for parsed bodies.
   */
  owned?: boolean;
  /** `status` for the status subresource. */
  subresource?: string;
  /** Validate and compute the result but store nothing. */
  dryRun?: boolean;
  /** The operation recorded in managedFields (default `Update`). */
  operation?: 'Update' | 'Apply';
  /**
   * Server-side apply: the applied configuration, whose fields alone the manager owns (default for
   * an Apply: the whole object). An Update owns the fields it changed, not this.
   */
  applied?: KubeObject;
  /** The managedFields to start from instead of the stored ones (a forced apply hands fields over). */
  managedFields?: readonly ManagedFieldsEntry[];
}

/** RFC 3339 time with whole seconds, like the API server writes it. */
export function timestamp(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}
let lastSecond = Number.NaN;
let lastStamp = '';

// JSON round trip: several times faster than structuredClone for plain JSON documents.
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
const same = jsonEqual;

type Obj = KubeObject & { spec?: unknown; status?: Record<string, unknown> } & Record<string, unknown>;

/**
 * The semantic object store.
 *
 * @example
 * const pod = objects.create(registry.get('', 'v1', 'pods')!, { metadata: { name: 'a' } }, 'default');
 */
export class ObjectStore {
  /** The underlying revisioned storage. */
  readonly storage: Storage;
  /** The resources served. */
  readonly registry: ResourceRegistry;
  readonly #random: Random;
  readonly #namespaceLifecycle: boolean;
  readonly #podGrace: number;
  readonly #graceMs: number;
  readonly #namespaceDelayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(options: ObjectStoreOptions) {
    this.storage = options.storage;
    this.registry = options.registry;
    this.#random = options.random;
    this.#namespaceLifecycle = options.namespaceLifecycle ?? true;
    this.#podGrace = options.defaultPodGracePeriodSeconds ?? 0;
    this.#graceMs = options.graceMsPerSecond ?? 1000;
    this.#namespaceDelayMs = options.namespaceDeletionDelayMs ?? 0;
  }

  /** Cancels pending graceful deletions. */
  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /**
   * Resolves a resource reference: a `ResourceInfo`, a plural (`pods`, core group first), a
   * `plural.group` (`deployments.apps`) or `group/version/plural` (`apps/v1/deployments`, `v1/pods`).
   * Throws a 404 `ApiStatusError` for a resource not served.
   */
  resolve(ref: ResourceRef): ResourceInfo {
    if (typeof ref !== 'string') return ref;
    if (this.#resolvedAt !== this.registry.version) {
      this.#resolved.clear();
      this.#resolvedAt = this.registry.version;
    }
    const hit = this.#resolved.get(ref);
    if (hit) return hit;
    const parts = ref.split('/');
    let found: ResourceInfo | undefined;
    if (parts.length === 3) found = this.registry.get(parts[0], parts[1], parts[2]);
    else if (parts.length === 2) found = this.registry.get('', parts[0], parts[1]);
    else {
      const dot = ref.indexOf('.');
      const plural = dot < 0 ? ref : ref.slice(0, dot);
      const group = dot < 0 ? '' : ref.slice(dot + 1);
      const all = this.registry.all().filter((r) => r.resource === plural && (dot < 0 || r.group === group));
      found = all.find((r) => r.group === '') ?? all[0];
    }
    if (!found) throw errors.unknownPath();
    this.#resolved.set(ref, found);
    return found;
  }

  readonly #resolved = new Map<string, ResourceInfo>();
  #resolvedAt = -1;

  /** The current revision of the storage. */
  get resourceVersion(): string {
    return String(this.storage.resourceVersion);
  }

  /** Every current object of a resource (optionally in one namespace), in key order. */
  list(ref: ResourceRef, namespace?: string): KubeObject[] {
    const res = this.resolve(ref);
    const snap = this.storage.snapshot(gvrKey(res));
    const out: KubeObject[] = [];
    for (const k of snap.keys('', res.namespaced && namespace !== undefined ? `${namespace}/` : undefined)) {
      const o = snap.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** The current object, or a 404 `ApiStatusError`. */
  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject {
    const res = this.resolve(ref);
    const obj = this.storage.get(gvrKey(res), objectKey(res.namespaced ? namespace : undefined, name));
    if (!obj) throw errors.notFound({ resource: res.resource, group: res.group, name });
    return obj;
  }

  /** Like `get` but `undefined` when absent. */
  find(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const res = this.resolve(ref);
    return this.storage.get(gvrKey(res), objectKey(res.namespaced ? namespace : undefined, name));
  }

  /** The body of a create or update: a JSON object of the resource's kind (cloned unless owned), and its metadata. */
  #writeInput(res: ResourceInfo, input: KubeObject, options: WriteOptions): { obj: Obj; meta: ObjectMeta } {
    if (!input || typeof input !== 'object' || Array.isArray(input))
      throw errors.badRequest('the body of the request must be a JSON object');
    const obj = (options.owned ? input : clone(input)) as Obj;
    this.#checkKind(res, obj);
    return { obj, meta: obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {} };
  }

  #checkKind(res: ResourceInfo, obj: Obj): void {
    if (obj.kind !== undefined && obj.kind !== res.kind) {
      throw errors.badRequest(`the kind of the object (${String(obj.kind)}) does not match the kind of the resource (${res.kind})`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== groupVersion(res)) {
      throw errors.badRequest(
        `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${groupVersion(res)})`,
      );
    }
  }

  #checkNamespace(res: ResourceInfo, meta: ObjectMeta, namespace: string | undefined): string | undefined {
    if (!res.namespaced) return undefined;
    const ns = namespace ?? meta.namespace;
    if (namespace !== undefined && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (!ns) throw errors.badRequest('the namespace of the object is required');
    return ns;
  }

  /** The NamespaceLifecycle admission of a create: the namespace must exist and not be terminating. */
  #requireNamespace(res: ResourceInfo, ns: string | undefined, name: string): void {
    if (!this.#namespaceLifecycle || !res.namespaced || ns === undefined) return;
    const namespace = this.storage.get(NAMESPACES_KEY, objectKey(undefined, ns)) as Obj | undefined;
    if (!namespace) throw errors.notFound({ resource: 'namespaces', group: '', name: ns });
    if (namespace.status?.phase === 'Terminating') {
      throw errors.forbiddenObject(
        { resource: res.resource, group: res.group, name },
        `unable to create new content in namespace ${ns} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
      );
    }
  }

  /**
   * Creates an object: fills its metadata and stores it at the next revision.
   * Throws `ApiStatusError` (400, 404, 409, 422) without storing anything.
   */
  create(ref: ResourceRef, input: ObjectInput, namespace?: string, options: WriteOptions = {}): KubeObject {
    const res = this.resolve(ref);
    const { obj, meta } = this.#writeInput(res, input, options);
    const ns = this.#checkNamespace(res, meta, namespace);
    const gvr = gvrKey(res);
    let name = meta.name;
    if (!name && meta.generateName) {
      const causes = validateObjectName(res.resource, `${meta.generateName}a`, 'metadata.generateName');
      if (causes.length > 0) throw errors.invalid(res.kind, meta.generateName, causes, res.group);
      do name = `${meta.generateName}${generateNameSuffix(() => this.#random.next())}`;
      while (this.storage.get(gvr, objectKey(ns, name)));
    }
    if (!name) {
      throw errors.invalid(
        res.kind,
        '',
        [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
        res.group,
      );
    }
    const causes: StatusCause[] = validateObjectName(res.resource, name, 'metadata.name');
    if (causes.length > 0) throw errors.invalid(res.kind, name, causes, res.group);
    this.#requireNamespace(res, ns, name);
    if (this.storage.get(gvr, objectKey(ns, name))) throw errors.alreadyExists({ resource: res.resource, group: res.group, name });
    if (res.custom === false && res.resource === 'customresourcedefinitions') this.#validateCrd(obj);

    const now = timestamp();
    const rv = String(this.storage.nextRevision());
    const {
      deletionTimestamp: _d,
      deletionGracePeriodSeconds: _g,
      resourceVersion: _r,
      uid: _u,
      creationTimestamp: _c,
      generation: _gen,
      managedFields: _m,
      selfLink: _s,
      ...userMeta
    } = meta;
    const out: Obj = {
      ...obj,
      apiVersion: groupVersion(res),
      kind: res.kind,
      metadata: {
        ...userMeta,
        name,
        ...(ns !== undefined ? { namespace: ns } : {}),
        uid: this.#random.uuid(),
        resourceVersion: rv,
        ...(hasGeneration(res) ? { generation: 1 } : {}),
        creationTimestamp: now,
      },
    };
    if (!res.namespaced) delete out.metadata!.namespace;
    this.#defaults(res, out);
    // status is not writable through the main resource (pods keep theirs: there is no kubelet to set it)
    if (res.subresources.includes('status') && res.group !== '' && res.resource !== 'customresourcedefinitions') delete out.status;
    out.metadata!.managedFields = withManagedFields(
      undefined,
      options.applied ?? out,
      options.fieldManager ?? 'unknown',
      options.operation ?? 'Update',
      now,
    );
    if (options.dryRun) return out;
    this.storage.commit(gvr, 'ADDED', objectKey(ns, name), out);
    if (gvr === CRD_KEY) for (const r of resourcesOfCrd(out)) this.registry.add(r);
    return out;
  }

  #defaults(res: ResourceInfo, obj: Obj): void {
    const key = gvrKey(res);
    if (key === '/v1/pods') {
      obj.spec = {
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        ...(obj.spec as object),
      };
      obj.status = { phase: 'Pending', qosClass: 'BestEffort', ...(obj.status ?? {}) };
    } else if (key === '/v1/namespaces') {
      obj.metadata!.labels = { ...obj.metadata!.labels, 'kubernetes.io/metadata.name': obj.metadata!.name as string };
      obj.spec = { finalizers: ['kubernetes'], ...(obj.spec as object) };
      obj.status = { phase: 'Active' };
    } else if (key === CRD_KEY) {
      const names = (obj.spec as { names?: unknown }).names;
      obj.status = {
        conditions: [
          { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: timestamp() },
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
            lastTransitionTime: timestamp(),
          },
        ],
        acceptedNames: names,
        storedVersions: ((obj.spec as { versions?: { name: string; storage?: boolean }[] }).versions ?? [])
          .filter((v) => v.storage)
          .map((v) => v.name),
      };
    }
  }

  #validateCrd(obj: Obj): void {
    const spec = (obj.spec ?? {}) as { group?: string; names?: { plural?: string; kind?: string }; versions?: unknown[] };
    const causes: StatusCause[] = [];
    if (!spec.group) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.group' });
    if (!spec.names?.plural) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.names.plural' });
    if (!spec.names?.kind) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.names.kind' });
    if (!Array.isArray(spec.versions) || spec.versions.length === 0)
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: must have exactly one version marked as storage version',
        field: 'spec.versions',
      });
    const name = obj.metadata?.name ?? '';
    if (causes.length === 0 && name !== `${spec.names!.plural}.${spec.group}`) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
        field: 'metadata.name',
      });
    }
    if (causes.length > 0) throw errors.invalid('CustomResourceDefinition', name, causes, 'apiextensions.k8s.io');
  }

  /**
   * Replaces an object (PUT). A `metadata.resourceVersion` that is not the current one → 409
   * Conflict; none → unconditional update. A no-op update keeps the revision and emits nothing.
   */
  update(ref: ResourceRef, input: ObjectInput, namespace: string | undefined, name: string, options: WriteOptions = {}): KubeObject {
    const res = this.resolve(ref);
    const { obj, meta } = this.#writeInput(res, input, options);
    if (meta.name !== undefined && meta.name !== name) {
      throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    const ns = this.#checkNamespace(res, meta, namespace);
    const target = { resource: res.resource, group: res.group, name };
    const current = this.find(res, ns, name) as Obj | undefined;
    if (!current) throw errors.notFound(target);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== current.metadata!.resourceVersion)
      throw errors.conflict(target);
    if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== current.metadata!.uid) {
      throw errors.conflict(target, `Precondition failed: UID in precondition: ${current.metadata!.uid}, UID in object meta: ${meta.uid}`);
    }
    const cur = current.metadata!;
    let next: Obj;
    if (options.subresource === 'status') {
      next = { ...current, status: obj.status };
    } else {
      next = {
        ...obj,
        apiVersion: groupVersion(res),
        kind: res.kind,
        metadata: { ...meta, name, ...(ns !== undefined ? { namespace: ns } : {}) },
      };
      if (res.subresources.includes('status')) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
    }
    const m = next.metadata!;
    m.uid = cur.uid;
    m.creationTimestamp = cur.creationTimestamp;
    if (cur.deletionTimestamp !== undefined) m.deletionTimestamp = cur.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (cur.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = cur.deletionGracePeriodSeconds;
    if (cur.generateName !== undefined && m.generateName === undefined) m.generateName = cur.generateName;
    if (cur.generation !== undefined) m.generation = cur.generation;
    if (res.resource === 'namespaces' && options.subresource !== 'status') {
      m.labels = { ...m.labels, 'kubernetes.io/metadata.name': name };
    }
    m.managedFields = cur.managedFields;
    m.resourceVersion = cur.resourceVersion;
    const unchanged = sameIgnoringVolatile(next, current);
    // an apply that changes nothing but who owns what still writes its managedFields
    if (unchanged && options.operation !== 'Apply') return current;
    if (cur.generation !== undefined && !same(next.spec, current.spec)) m.generation = (cur.generation as number) + 1;
    if (m.generation === undefined && hasGeneration(res) && !same(next.spec, current.spec)) m.generation = 1;
    const now = timestamp();
    const base = options.managedFields ?? (cur.managedFields as ManagedFieldsEntry[] | undefined);
    const manager = options.fieldManager ?? 'unknown';
    // an apply owns its applied configuration (stamped only when it changed the object); a plain
    // update owns what it changed
    m.managedFields =
      options.operation === 'Apply'
        ? withManagedFields(base, options.applied ?? next, manager, 'Apply', unchanged ? undefined : now, options.subresource)
        : withUpdatedFields(base, current, next, manager, now, options.subresource);
    if (unchanged && sameOwnership(m.managedFields as ManagedFieldsEntry[], cur.managedFields as ManagedFieldsEntry[] | undefined))
      return current;
    const gvr = gvrKey(res);
    const key = objectKey(ns, name);
    if (deletesDuringUpdate(gvr, current, next)) {
      // the last finalizer is gone: the update is not stored, the object is deleted instead (its
      // DELETED event carries the stored state); the client gets the object it sent, as updated
      if (!options.dryRun) this.#removeNow(res, gvr, key, current);
      return next;
    }
    m.resourceVersion = String(this.storage.nextRevision());
    if (options.dryRun) return next;
    this.storage.commit(gvr, 'MODIFIED', key, next);
    if (gvr === CRD_KEY) for (const r of resourcesOfCrd(next)) this.registry.add(r);
    return next;
  }

  /**
   * Deletes an object. With finalizers, or a grace period, it is first marked
   * (`deletionTimestamp`, MODIFIED) and removed later. Returns the object's last state.
   */
  delete(ref: ResourceRef, namespace: string | undefined, name: string, options: DeleteOptions = {}): KubeObject {
    const res = this.resolve(ref);
    const ns = res.namespaced ? namespace : undefined;
    const target = { resource: res.resource, group: res.group, name };
    const current = this.find(res, ns, name) as Obj | undefined;
    if (!current) throw errors.notFound(target);
    const pre = options.preconditions ?? {};
    if (pre.uid !== undefined && pre.uid !== current.metadata!.uid) {
      throw errors.conflict(target, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata!.uid}`);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata!.resourceVersion) {
      throw errors.conflict(
        target,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata!.resourceVersion}`,
      );
    }
    if (options.gracePeriodSeconds !== undefined && (!Number.isInteger(options.gracePeriodSeconds) || options.gracePeriodSeconds < 0)) {
      throw errors.invalid('DeleteOptions', '', [
        { reason: 'FieldValueInvalid', message: 'Invalid value: must be >= 0', field: 'gracePeriodSeconds' },
      ]);
    }
    const gvr = gvrKey(res);
    const key = objectKey(ns, name);
    if (gvr === NAMESPACES_KEY) {
      const terminating = this.#terminateNamespace(key, current, options.dryRun?.includes('All') === true);
      if (terminating) return terminating;
    }
    if (options.dryRun?.includes('All')) return current;
    const finalizers = (current.metadata!.finalizers as string[] | undefined) ?? [];
    const grace = res.resource === 'pods' && res.group === '' ? (options.gracePeriodSeconds ?? this.#podGrace) : 0;
    if (current.metadata!.deletionTimestamp !== undefined) {
      if (finalizers.length > 0 || grace > 0) return current;
    }
    if (finalizers.length > 0 || grace > 0) {
      const marked = this.#atNextRevision(current, {
        deletionTimestamp: timestamp(Date.now() + grace * 1000),
        deletionGracePeriodSeconds: grace,
      });
      this.storage.commit(gvr, 'MODIFIED', key, marked);
      if (grace > 0) {
        this.#later(grace * this.#graceMs, () => {
          const now = this.storage.get(gvr, key) as Obj | undefined;
          if (!now || now.metadata?.uid !== current.metadata!.uid) return;
          const fins = (now.metadata!.finalizers as string[] | undefined) ?? [];
          if (fins.length === 0) this.#removeNow(res, gvr, key, now);
          // the kubelet's final delete (grace 0) only marks an object finalizers still hold
          else this.storage.commit(gvr, 'MODIFIED', key, this.#atNextRevision(now, { deletionGracePeriodSeconds: 0 }));
        });
      }
      return marked;
    }
    return this.#removeNow(res, gvr, key, current);
  }

  #removeNow(res: ResourceInfo, gvr: string, key: string, current: Obj): KubeObject {
    if (gvr === CRD_KEY) this.#deleteCustomResources(current);
    const last = this.#atNextRevision(current);
    this.storage.commit(gvr, 'DELETED', key, last);
    this.#afterDelete(res, last);
    return last;
  }

  #afterDelete(res: ResourceInfo, obj: Obj): void {
    if (gvrKey(res) === CRD_KEY) for (const r of resourcesOfCrd(obj)) this.registry.remove(gvrKey(r));
  }

  /**
   * The namespace's own DELETE: the first one marks it Terminating (deletionTimestamp and
   * status.phase, a MODIFIED) and schedules the namespace controller; a later one, while
   * spec.finalizers remain, is a 409. Returns undefined when the generic deletion applies.
   */
  #terminateNamespace(key: string, current: Obj, dryRun: boolean): KubeObject | undefined {
    const name = current.metadata!.name as string;
    if (current.metadata!.deletionTimestamp === undefined) {
      const marked: Obj = {
        ...this.#atNextRevision(current, { deletionTimestamp: timestamp() }),
        status: { ...current.status, phase: 'Terminating' },
      };
      if (dryRun) return marked;
      this.storage.commit(NAMESPACES_KEY, 'MODIFIED', key, marked);
      this.#later(this.#namespaceDelayMs, () => this.#namespaceController(name, current.metadata!.uid as string));
      return marked;
    }
    if (specFinalizers(current).length > 0) {
      throw errors.conflict(
        { resource: 'namespaces', group: '', name },
        'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
      );
    }
    return undefined;
  }

  /**
   * One pass of the simulated namespace controller over a terminating namespace: deletes its
   * contents (graceful pods and finalizers are honoured), and once nothing is left removes its
   * `kubernetes` finalizer, which deletes the namespace when no other finalizer holds it. With
   * contents left, it tries again one simulated second later.
   */
  #namespaceController(ns: string, uid: string): void {
    const key = objectKey(undefined, ns);
    const current = this.storage.get(NAMESPACES_KEY, key) as Obj | undefined;
    if (!current || current.metadata?.uid !== uid) return;
    let left = 0;
    for (const r of this.registry.all()) {
      if (!r.namespaced) continue;
      for (const o of [...this.storage.values(gvrKey(r))]) {
        if (o.metadata?.namespace !== ns) continue;
        if (this.storage.get(gvrKey(r), objectKey(ns, o.metadata.name as string)) !== o) continue;
        left += this.delete(r, ns, o.metadata.name as string, {}).metadata?.deletionTimestamp !== undefined ? 1 : 0;
      }
    }
    if (left > 0) {
      this.#later(this.#graceMs, () => this.#namespaceController(ns, uid));
      return;
    }
    const fins = specFinalizers(current);
    const finalized: Obj = { ...current, spec: { ...(current.spec as object), finalizers: fins.filter((f) => f !== 'kubernetes') } };
    if (deletesDuringUpdate(NAMESPACES_KEY, current, finalized)) {
      this.#removeNow(this.resolve('v1/namespaces'), NAMESPACES_KEY, key, current);
      return;
    }
    if (fins.includes('kubernetes')) this.storage.commit(NAMESPACES_KEY, 'MODIFIED', key, this.#atNextRevision(finalized));
  }

  /** `obj` with `changes` to its metadata, at the next revision (a new object: stored ones never change). */
  #atNextRevision(obj: Obj, changes: Record<string, unknown> = {}): Obj {
    return { ...obj, metadata: { ...obj.metadata, ...changes, resourceVersion: String(this.storage.nextRevision()) } };
  }

  /** Runs `fn` after `ms` on a timer that `close()` cancels. */
  #later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    timer.unref?.();
    this.#timers.add(timer);
  }

  #deleteCustomResources(crd: Obj): void {
    for (const r of resourcesOfCrd(crd)) {
      const gvr = gvrKey(r);
      for (const o of [...this.storage.values(gvr)]) {
        const last = this.#atNextRevision(o as Obj);
        this.storage.commit(gvr, 'DELETED', objectKey(o.metadata?.namespace, o.metadata!.name as string), last);
      }
    }
  }
}

const NAMESPACES_KEY = '/v1/namespaces';

/**
 * Whether the API server keeps `metadata.generation` for a resource: the kinds whose registry
 * strategy sets it (workloads, CRDs, custom resources) and pods (since 1.33); not services,
 * namespaces, nodes, config maps or secrets.
 */
function hasGeneration(res: ResourceInfo): boolean {
  return res.hasSpec || (res.group === '' && res.resource === 'pods');
}

/** A namespace's `spec.finalizers`. */
function specFinalizers(ns: Obj): string[] {
  return (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
}

/**
 * Whether an update deletes the object instead (the API server's rule): the new state has no
 * finalizers and the stored one is being deleted with no grace period left (0 or none).
 */
function deletesDuringUpdate(gvr: string, current: Obj, next: Obj): boolean {
  const fins = next.metadata?.finalizers as string[] | undefined;
  if (fins !== undefined && fins.length > 0) return false;
  // a namespace also waits for its spec.finalizers
  if (gvr === NAMESPACES_KEY && specFinalizers(next).length > 0) return false;
  const cur = current.metadata!;
  return cur.deletionTimestamp !== undefined && ((cur.deletionGracePeriodSeconds as number | undefined) ?? 0) === 0;
}

/** Whether two objects are equal apart from the fields a write does not compare (resourceVersion, managedFields). */
function sameIgnoringVolatile(a: Obj, b: Obj): boolean {
  for (const k in a) if (k !== 'metadata' && a[k] !== undefined && !jsonEqual(a[k], b[k])) return false;
  for (const k in b) if (k !== 'metadata' && b[k] !== undefined && a[k] === undefined) return false;
  const am = (a.metadata ?? {}) as Record<string, unknown>;
  const bm = (b.metadata ?? {}) as Record<string, unknown>;
  const volatile = (k: string) => k === 'resourceVersion' || k === 'managedFields';
  for (const k in am) if (!volatile(k) && am[k] !== undefined && !jsonEqual(am[k], bm[k])) return false;
  for (const k in bm) if (!volatile(k) && bm[k] !== undefined && am[k] === undefined) return false;
  return true;
}
