/**
 * The pod reaper, on the manager: a counter ConfigMap (labelled `pod-reaper.example.com/counter`)
 * owns pods; each of its pods that failed is deleted, and the count kept in the ConfigMap's
 * `data.reaped`. The Failed pods come from a scoped source (`status.phase=Failed`: the server
 * filters, the cache holds no other pod), and every write goes through `req.api`, so the owner's
 * next reconcile waits for the cache to show it — and, the deleted pod being gone at the DELETE's
 * answer, no longer.
 */
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { configMaps, pods } from '@rxinformer/client-node';
import { controllerFor, isNotFound, refOf, type Controller, type Manager } from '@rxinformer/controller';
import type { Wire } from '@rxinformer/core';

/** The label of a counter ConfigMap: its pods are reaped when they fail. */
export const COUNTER_LABEL = 'pod-reaper.example.com/counter';

type Pod = Wire<V1Pod>;

/**
 * The reaper, added to `manager`; `log` is told of each pod deleted and how soon after its delete
 * the owner was reconciled again.
 *
 * @example
 * reaper(createManager({ factory, client, leaderElection: { namespace, name: 'pod-reaper', identity } }), console.log);
 */
export function reaper(manager: Manager, log: (line: string) => void): Controller {
  const failed = manager.factory.informerFor(pods, { fieldSelector: 'status.phase=Failed' });
  const lastDelete = new Map<string, number>();
  return controllerFor(manager, configMaps, { name: 'pod-reaper', labelSelector: COUNTER_LABEL })
    .owns(pods, { fieldSelector: 'status.phase=Failed' })
    .reconcile(async ({ key, object: counter, api }) => {
      const since = lastDelete.get(key);
      if (since !== undefined) log(`${key} reconciled ${Math.round(performance.now() - since)} ms after its delete`);
      lastDelete.delete(key);
      if (counter === undefined) return;
      const uid = counter.metadata?.uid;
      const owned = failed
        .getStore()
        .list()
        .filter((p: Pod) => p.metadata?.ownerReferences?.some((o) => o.uid === uid && o.controller));
      let reaped = 0;
      // No signal: a term ending mid-way still counts the deletes it sent (the stop awaits this reconcile).
      for (const pod of owned) {
        const gone = await api(pods)
          .delete(refOf(pod), { preconditions: { uid: pod.metadata!.uid! } })
          .then(
            () => true,
            (e: unknown) => {
              if (isNotFound(e)) return false; // gone already
              throw e;
            },
          );
        if (gone) log(`reaped ${pod.metadata!.namespace}/${pod.metadata!.name}`);
        reaped += gone ? 1 : 0;
      }
      if (reaped === 0) return;
      lastDelete.set(key, performance.now());
      await api(configMaps).update(counter as Wire<V1ConfigMap>, (d) => {
        d.data = { ...d.data, reaped: String(Number(d.data?.reaped ?? 0) + reaped) };
      });
    });
}
