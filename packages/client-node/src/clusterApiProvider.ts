/**
 * Cluster API's clusters as a provider (multicluster-runtime's Cluster API provider): each
 * workload cluster's kubeconfig Secret in the management cluster — `<cluster>-kubeconfig`, of type
 * `cluster.x-k8s.io/secret`, labelled `cluster.x-k8s.io/cluster-name`, the kubeconfig in its
 * `value` key — followed with an informer.
 */
import { Buffer } from 'node:buffer';
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { BehaviorSubject, Observable } from 'rxjs';
import { InvalidOptionsError, type Wire } from '@rxinformer/core';
import {
  checkClusterName,
  ClusterSourceError,
  type ClusterEvent,
  type ClusterProvider,
  type ClusterProviderStatus,
} from '@rxinformer/core/multicluster';
import { createKubeInformerFactory } from './factory.ts';
import { kubeCluster, type KubeCluster } from './kubeCluster.ts';
import { parseKubeconfig } from './kubeconfigProviders.ts';
import { secrets } from './resources.ts';

/** The label Cluster API puts on a cluster's Secrets: the cluster's name. */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** The type of Cluster API's Secrets. */
export const CLUSTER_SECRET_TYPE = 'cluster.x-k8s.io/secret';

/** Options of `clusterApiProvider`. */
export interface ClusterApiProviderOptions {
  /** The namespace of the Cluster objects and their Secrets. Default: every namespace. */
  namespace?: string;
}

/** A Secret as the provider reads it. */
type KubeconfigSecret = Wire<V1Secret>;

/**
 * The workload clusters of the Cluster API management cluster `kubeConfig` reaches: each kubeconfig
 * Secret joins its cluster, a changed one rejoins it, a deleted one leaves it. A cluster is named
 * after its `cluster.x-k8s.io/cluster-name` label, prefixed with the Secret's namespace and a dot
 * when no `namespace` is given (`fleet-a.eu-1`); `synced` once the Secrets are listed.
 *
 * @example
 * const fleet = createMultiClusterFactory(clusterApiProvider(managementKc, { namespace: 'fleet' }));
 *
 * Caveat: a Secret without a `value` that parses as a kubeconfig is a `ClusterSourceError` on
 * `status$` (keyed `namespace/name`), and its cluster stays as it was. The provider needs to list
 * and watch Secrets in the namespace; its informer's failures show on `status$` too.
 */
export function clusterApiProvider(kubeConfig: KubeConfig, options: ClusterApiProviderOptions = {}): ClusterProvider<KubeCluster> {
  if (typeof kubeConfig?.getContexts !== 'function') throw new InvalidOptionsError('clusterApiProvider needs a KubeConfig');
  const { namespace } = options;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === ''))
    throw new InvalidOptionsError('clusterApiProvider: namespace must be a non-empty string');
  const status = new BehaviorSubject<ClusterProviderStatus>({ errors: new Map() });
  const clusters$ = new Observable<ClusterEvent<KubeCluster>>((subscriber) => {
    const factory = createKubeInformerFactory(kubeConfig, {
      namespace,
      fieldSelector: `type=${CLUSTER_SECRET_TYPE}`,
      labelSelector: CLUSTER_NAME_LABEL,
    });
    const errors = new Map<string, Error>();
    const joined = new Map<string, { value: string; secret: string }>(); // cluster → the kubeconfig it joined with
    const report = (secret: string, error: Error | undefined): void => {
      if (error === undefined ? !errors.delete(secret) : errors.get(secret) === error) return;
      if (error !== undefined) errors.set(secret, error);
      status.next({ errors: new Map(errors) });
    };
    const seen = (secret: KubeconfigSecret, key: string): void => {
      const read = readSecret(secret, key, namespace === undefined);
      if (read === undefined) return; // another Secret of the cluster (its CA, …)
      if ('error' in read) return report(key, read.error);
      report(key, undefined);
      if (joined.get(read.name)?.value === read.value) return;
      joined.set(read.name, { value: read.value, secret: key });
      subscriber.next({ type: 'join', cluster: kubeCluster(read.name, read.kubeConfig) });
    };
    const informer = factory.informerFor(secrets);
    const registration = informer.addEventHandler(
      {
        onAdd: (s, _initial, key) => seen(s, key),
        onUpdate: (_old, s, key) => seen(s, key),
        onDelete: ({ key }) => {
          report(key, undefined);
          for (const [name, j] of joined)
            if (j.secret === key) {
              joined.delete(name);
              subscriber.next({ type: 'leave', name });
            }
        },
      },
      { name: 'cluster-api-provider' },
    );
    const synced = registration.synced$.subscribe((s) => s && subscriber.next({ type: 'synced' }));
    const failures = informer.status$.subscribe((s) => report('informer', s.phase === 'backingOff' ? s.lastError : undefined));
    factory.start();
    return () => {
      synced.unsubscribe();
      failures.unsubscribe();
      void factory.close().catch(() => undefined);
    };
  });
  return { clusters$, status$: status.asObservable() };
}

/**
 * The cluster of a kubeconfig Secret: its name and kubeconfig; undefined for a Secret of the cluster
 * that is not its kubeconfig; an error for a kubeconfig Secret that cannot be read.
 */
function readSecret(
  secret: KubeconfigSecret,
  key: string,
  qualify: boolean,
): { name: string; value: string; kubeConfig: KubeConfig } | { error: Error } | undefined {
  const cluster = secret.metadata?.labels?.[CLUSTER_NAME_LABEL];
  if (cluster === undefined || secret.metadata?.name !== `${cluster}-kubeconfig`) return undefined;
  const value = secret.data?.value;
  if (typeof value !== 'string') return { error: new ClusterSourceError('InvalidKubeconfigSecret', key, 'the Secret has no data.value') };
  const name = qualify ? `${secret.metadata.namespace}.${cluster}` : cluster;
  try {
    checkClusterName(name);
    return { name, value, kubeConfig: parseKubeconfig(Buffer.from(value, 'base64').toString('utf8'), key) };
  } catch (e) {
    return {
      error:
        e instanceof ClusterSourceError ? e : new ClusterSourceError('InvalidKubeconfigSecret', key, (e as Error).message, { cause: e }),
    };
  }
}
