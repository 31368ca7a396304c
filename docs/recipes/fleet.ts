/**
 * A fleet over a folder of kubeconfigs: a dashboard's rows (the ConfigMaps of every cluster, each
 * with its cluster) and a controller that labels each cluster's ConfigMaps with that cluster's name,
 * writing to that cluster. A kubeconfig file added to the folder joins its cluster, one removed
 * takes its cluster's rows away.
 */
import { configMaps, kubeClusterClients, kubeconfigFolderProvider } from '@rxinformer/client-node';
import { controllerFor } from '@rxinformer/controller';
import { createMultiClusterFactory, parseClusterKey, type ClusterProviderStatus } from '@rxinformer/core/multicluster';
import { map, type Observable } from 'rxjs';

/** The label the controller sets: the name of the cluster the ConfigMap is in. */
export const CLUSTER_LABEL = 'example.com/cluster';

/** One row of the dashboard. */
export interface FleetRow {
  readonly cluster: string;
  readonly name: string;
  /** The controller has labelled it with its cluster. */
  readonly labelled: boolean;
}

/** Starts the fleet of the kubeconfigs in `dir`, over the ConfigMaps of `namespace` in each cluster. */
export function startFleet(dir: string, namespace: string) {
  const provider = kubeconfigFolderProvider(dir);
  const fleet = createMultiClusterFactory(provider);
  const view = fleet.informerFor(configMaps, { namespace });

  // The dashboard: one row per ConfigMap; its key says its cluster (cluster://NAME/namespace/name).
  const rows$: Observable<FleetRow[]> = view.store$.pipe(
    map((store) =>
      store.keys().map((key) => {
        const { cluster } = parseClusterKey(key)!;
        const cm = store.get(key)!;
        return { cluster, name: cm.metadata!.name!, labelled: cm.metadata?.labels?.[CLUSTER_LABEL] === cluster };
      }),
    ),
  );
  // Which clusters fail now (a killed API server, a revoked token): each cluster's own status.
  const failing = () => [...view.getClusterStatus()].filter(([, s]) => s.phase === 'backingOff').map(([cluster]) => cluster);
  // Which kubeconfig files are broken (their clusters stay as they were).
  const brokenFiles$: Observable<string[]> = provider.status$!.pipe(map((s: ClusterProviderStatus) => [...s.errors.keys()]));

  // The controller: each request carries its cluster, and req.api writes to that cluster.
  const labeler = controllerFor(fleet, configMaps, { name: 'cluster-labeler', namespace, client: kubeClusterClients(fleet) }).reconcile(
    async (req) => {
      const cm = req.object;
      if (cm === undefined || cm.metadata?.labels?.[CLUSTER_LABEL] === req.cluster) return;
      await req.api(configMaps).update(cm, (d) => {
        d.metadata!.labels = { ...d.metadata!.labels, [CLUSTER_LABEL]: req.cluster! };
      });
    },
  );
  const running = labeler.start(); // starts the fleet too

  return {
    fleet,
    rows$,
    failing,
    brokenFiles$,
    stop: async () => {
      await running.stop();
      fleet.shutdown();
    },
  };
}
