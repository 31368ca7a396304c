/**
 * The ConfigMap replicator, on the controller builder: every ConfigMap labelled `replicate=true` is
 * copied into each namespace labelled `team` (not its own) and kept equal. Owner references cannot
 * cross namespaces, so a copy names its source by a label (its namespace; the name is the same) and
 * the source holds a finalizer until its copies are deleted: a source deleted while no replica runs
 * is cleaned up by the next one. A same-named ConfigMap the replicator did not make is left alone,
 * with a Warning Event on it.
 */
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { configMaps, namespaces } from '@rxinformer/client-node';
import { controllerFor, finalizer, isNotFound, labelsChanged, refOf } from '@rxinformer/controller';
import type { Controller, Manager, Predicate, ResourceApi } from '@rxinformer/controller';
import { metaNamespaceKeyFunc, type SharedInformer, type Wire } from '@rxinformer/core';

/** A ConfigMap and a Namespace as the caches hold them (timestamps are the wire's strings). */
type ConfigMap = Wire<V1ConfigMap>;
type Namespace = Wire<V1Namespace>;

/** The label that makes a ConfigMap a source (value `true`). */
export const REPLICATE_LABEL = 'replicate';
/** The label that makes a namespace a target (any value). */
export const TEAM_LABEL = 'team';
/** The label each copy carries: its source's namespace (the name is the source's). */
export const SOURCE_LABEL = 'replicator.example.com/source-namespace';
/** The finalizer a source holds while it may have copies. */
export const FINALIZER = 'replicator.example.com/copies';

const isSource = (cm: ConfigMap | undefined) => cm?.metadata?.labels?.[REPLICATE_LABEL] === 'true';
const holds = (cm: ConfigMap | undefined) => cm?.metadata?.finalizers?.includes(FINALIZER) === true;
/** The key of the source `cm` is a copy of, if it is one. */
const sourceOf = (cm: ConfigMap | undefined) => {
  const ns = cm?.metadata?.labels?.[SOURCE_LABEL];
  return ns ? `${ns}/${cm!.metadata!.name}` : undefined;
};
/** A rejection handler: `fallback` for a 404 (gone already: the cache was behind), else the error again. */
const unlessNotFound =
  <T>(fallback: T) =>
  (e: unknown): T => {
    if (isNotFound(e)) return fallback;
    throw e;
  };
/** Sources, and former sources still holding the finalizer: the objects the controller reconciles. */
const ours = (cm: ConfigMap) => isSource(cm) || holds(cm);
const primaryFilter: Predicate<ConfigMap> = { add: ours, update: (o, n) => ours(o) || ours(n), delete: ours };

/** The namespaces `source` is copied to: those labelled `team`, not being deleted, but its own. */
function targetsOf(teams: SharedInformer<Namespace>, source: ConfigMap): string[] {
  return teams
    .getStore()
    .list()
    .filter((ns) => ns.metadata?.labels?.[TEAM_LABEL] !== undefined && !ns.metadata.deletionTimestamp)
    .map((ns) => ns.metadata!.name!)
    .filter((ns) => ns !== source.metadata!.namespace);
}

/**
 * The replicator controller, added to `manager` (whose factory must be cluster-wide, and whose
 * client every write goes through: the copies and finalizers by `req.api`, the Events by its
 * recorder); `log` is told what it did, one line each.
 *
 * @example
 * replicator(createManager({ factory, client, leaderElection: { namespace, name, identity } }), console.log);
 */
export function replicator(manager: Manager, log: (line: string) => void): Controller {
  const { factory } = manager;
  const events = manager.eventRecorder({ reportingController: 'replicator.example.com/replicator' });
  const cache = factory.informerFor(configMaps, {
    indexers: { copies: (cm) => [sourceOf(cm)].filter((k) => k !== undefined), sources: (cm) => (isSource(cm) ? ['*'] : []) },
  });
  const teams = factory.informerFor(namespaces);

  const warned = new Set<string>();
  const copyTo = async (cms: ResourceApi<ConfigMap>, key: string, source: ConfigMap, namespace: string) => {
    const { name, namespace: sourceNs } = source.metadata!;
    let foreign = false;
    const copy: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels: { [SOURCE_LABEL]: sourceNs! } } };
    const { object, result } = await cms.createOrUpdate(copy, (d) => {
      if (d.metadata?.labels?.[SOURCE_LABEL] !== sourceNs) return void (foreign = true); // not ours: no write
      for (const field of ['data', 'binaryData'] as const)
        if (source[field] === undefined) delete d[field];
        else d[field] = source[field];
    });
    const seen = `${object.metadata!.uid}@${object.metadata!.resourceVersion}`;
    if (foreign && !warned.has(seen)) {
      warned.add(seen); // once per version of the foreign object
      const note = `${namespace}/${name} was not made by the replicator: left alone, not replicated from ${key}`;
      events.event(object, { type: 'Warning', reason: 'NotReplicated', action: 'Replicate', note, related: source });
      log(`left ${namespace}/${name} alone: not made by the replicator`);
    } else if (!foreign && result !== 'unchanged') log(`${result} ${namespace}/${name} from ${key}`);
  };
  /** Deletes the copies of `key`, all of them or those outside `keep`. */
  const removeCopies = async (cms: ResourceApi<ConfigMap>, key: string, keep: readonly string[] = []) => {
    for (const copy of cache.getStore().byIndex('copies', key)) {
      if (keep.includes(copy.metadata!.namespace!)) continue;
      const deleted = await cms
        .delete(refOf(copy), { preconditions: { uid: copy.metadata!.uid! } })
        .then(() => true, unlessNotFound(false));
      if (deleted) log(`deleted ${metaNamespaceKeyFunc(copy)}, a copy of ${key}`);
    }
  };

  return controllerFor(manager, configMaps, {
    name: 'replicator',
    predicates: [primaryFilter],
    onError: (e) => log(`${e.key ?? e.stage}: ${String(e.error)}`), // a sync failure has no key
  })
    .watches(configMaps, (oldCm, newCm) => [sourceOf(oldCm), sourceOf(newCm)].filter((k) => k !== undefined))
    .watches(namespaces, () => cache.getStore().byIndex('sources', '*').map(metaNamespaceKeyFunc), { predicates: [labelsChanged] })
    .reconcile(async ({ key, object: source, api }) => {
      const cms = api(configMaps); // its writes hold the key's next reconcile until the cache shows them
      if (source === undefined) return removeCopies(cms, key); // gone without our finalizer: no copy may stay
      if (!isSource(source)) {
        if (!holds(source)) return;
        await removeCopies(cms, key); // no longer a source: its copies go, then the finalizer
        await cms.update(source, (d) => void (d.metadata!.finalizers = d.metadata!.finalizers!.filter((f) => f !== FINALIZER)));
        return log(`${key} is no longer replicated`);
      }
      const outcome = await finalizer(cms, FINALIZER, source, {
        apply: async (s) => {
          const targets = targetsOf(teams, s);
          for (const ns of targets) await copyTo(cms, key, s, ns);
          await removeCopies(cms, key, targets); // namespaces no longer labelled
        },
        cleanup: () => removeCopies(cms, key),
      }).catch(unlessNotFound(undefined));
      if (outcome?.event === 'cleanup') log(`${key} deleted: its copies are gone`);
    });
}
