/**
 * Creating an object as the API server does: its name (given, or generated from `generateName`)
 * validated, the NamespaceLifecycle admission (the namespace must exist and not be terminating),
 * the metadata the server fills (uid, resourceVersion, generation, creationTimestamp,
 * managedFields), the defaults of pods, namespaces, deployments and CRDs, and a CRD's resources registered
 * once it is stored.
 */
import type { KubeObject, ObjectMeta } from '@rxinformer/core';
import { withManagedFields } from './managedFields.ts';
import { checkNamespace, hasGeneration, NAMESPACES_KEY, timestamp, writeInput, type Obj } from './objectMeta.ts';
import { CRD_KEY, gvrKey, groupVersion, resourcesOfCrd, type ResourceInfo } from './resources.ts';
import { errors, type StatusCause } from './status.ts';
import { objectKey } from './storage.ts';
import { checkCreateNamespace } from './objectKeys.ts';
import { generateNameSuffix, validateEventNote, validateObjectName } from './validation.ts';
import type { WriteContext, WriteOptions } from './writeContext.ts';

/**
 * Creates an object: fills its metadata and stores it at the next revision (`ObjectStore.create`).
 * Throws `ApiStatusError` (400, 403, 404, 409, 422) without storing anything.
 */
export function createObject(
  ctx: WriteContext,
  res: ResourceInfo,
  input: KubeObject,
  namespace: string | undefined,
  options: WriteOptions,
): KubeObject {
  const { obj, meta } = writeInput(res, input, options);
  const ns = checkNamespace(res, meta, namespace);
  const gvr = gvrKey(res);
  // the NamespaceLifecycle admission runs before the name is generated and validated
  requireNamespace(ctx, res, ns, meta.name ?? '');
  const name = nameOf(ctx, res, meta, ns);
  if (ctx.storage.get(gvr, objectKey(ns, name))) throw errors.alreadyExists({ resource: res.resource, group: res.group, name });
  if (res.custom === false && res.resource === 'customresourcedefinitions') validateCrd(obj);
  if (gvr === EVENTS_V1_KEY) validateEvent(obj, name);

  const now = timestamp();
  const out = withServerMetadata(ctx, res, obj, meta, ns, name, now);
  applyDefaults(res, out);
  // status is not writable through the main resource (pods keep theirs: there is no kubelet to set it)
  if (res.subresources.includes('status') && res.group !== '' && res.resource !== 'customresourcedefinitions') delete out.status;
  out.metadata!.managedFields = withManagedFields(
    undefined,
    options.applied ?? out,
    options.fieldManager ?? 'unknown',
    options.operation ?? 'Update',
    now,
  );
  // an object with no field to own has no managedFields at all
  if (out.metadata!.managedFields.length === 0) delete out.metadata!.managedFields;
  if (options.dryRun) return out;
  ctx.storage.commit(gvr, 'ADDED', objectKey(ns, name), out);
  if (gvr === CRD_KEY) for (const r of resourcesOfCrd(out)) ctx.registry.add(r);
  return out;
}

/** The name of a new object: `metadata.name`, or `generateName` plus a free random suffix (422 for an invalid one). */
function nameOf(ctx: WriteContext, res: ResourceInfo, meta: ObjectMeta, ns: string | undefined): string {
  let name = meta.name;
  if (!name && meta.generateName) {
    const causes = validateObjectName(res.resource, `${meta.generateName}a`, 'metadata.generateName');
    if (causes.length > 0) throw errors.invalid(res.kind, meta.generateName, causes, res.group);
    do name = `${meta.generateName}${generateNameSuffix(() => ctx.random.next())}`;
    while (ctx.storage.get(gvrKey(res), objectKey(ns, name)));
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
  return name;
}

/** The NamespaceLifecycle admission of a create: the namespace must exist and not be terminating. */
function requireNamespace(ctx: WriteContext, res: ResourceInfo, ns: string | undefined, name: string): void {
  if (!ctx.namespaceLifecycle || !res.namespaced || ns === undefined) return;
  checkCreateNamespace(ns);
  const namespace = ctx.storage.get(NAMESPACES_KEY, objectKey(undefined, ns)) as Obj | undefined;
  if (!namespace) throw errors.notFound({ resource: 'namespaces', group: '', name: ns });
  if (namespace.status?.phase === 'Terminating') {
    throw errors.forbiddenObject(
      { resource: res.resource, group: res.group, name },
      `unable to create new content in namespace ${ns} because it is being terminated`,
      [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
    );
  }
}

/** The new object: the body with the kind and apiVersion of the resource, and the metadata the server sets (at the next revision). */
function withServerMetadata(
  ctx: WriteContext,
  res: ResourceInfo,
  obj: Obj,
  meta: ObjectMeta,
  ns: string | undefined,
  name: string,
  now: string,
): Obj {
  const rv = String(ctx.storage.nextRevision());
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
      uid: ctx.random.uuid(),
      resourceVersion: rv,
      ...(hasGeneration(res) ? { generation: 1 } : {}),
      creationTimestamp: now,
    },
  };
  if (!res.namespaced) delete out.metadata!.namespace;
  return out;
}

/** The defaults the API server sets on create: pod spec and status, a namespace's label, finalizer and phase, a CRD's status, a deployment's replicas. */
function applyDefaults(res: ResourceInfo, obj: Obj): void {
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
  } else if (key === NAMESPACES_KEY) {
    obj.metadata!.labels = { ...obj.metadata!.labels, 'kubernetes.io/metadata.name': obj.metadata!.name as string };
    obj.spec = { finalizers: ['kubernetes'], ...(obj.spec as object) };
    obj.status = { phase: 'Active' };
  } else if (key === CRD_KEY) {
    obj.status = crdStatus(obj);
  } else if (key === 'apps/v1/deployments' && obj.spec && typeof obj.spec === 'object') {
    // kube-apiserver defaults more of a deployment (strategy, history limit…); its Table reads this one
    obj.spec = { replicas: 1, ...(obj.spec as object) };
  }
}

/** A new CRD's status: its names accepted, established, its storage version recorded. */
function crdStatus(obj: Obj): Record<string, unknown> {
  const names = (obj.spec as { names?: unknown }).names;
  return {
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

/** The events.k8s.io/v1 events resource's key. */
const EVENTS_V1_KEY = 'events.k8s.io/v1/events';

/**
 * The validation of a new events.k8s.io/v1 Event (its note's length): a 422 naming the internal
 * core `Event`, as kube-apiserver validates the core Event it converts to.
 */
function validateEvent(obj: Obj, name: string): void {
  const causes = validateEventNote(obj.note);
  if (causes.length > 0) throw errors.invalid('Event', name, causes);
}

/** The validation of a CRD: group, plural and kind names, a version, and the name `<plural>.<group>` (422 otherwise). */
function validateCrd(obj: Obj): void {
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
