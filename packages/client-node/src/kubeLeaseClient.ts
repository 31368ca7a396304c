/**
 * The `LeaseClient` of leader election and shard membership over a client-node `KubeConfig`: its
 * credentials and TLS, through the same keep-alive connections as the ListerWatchers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { httpLeaseClient, type LeaseClient } from '@rxinformer/core/leader-election';
import { sharedKubeTransport, type KubeTransport } from './kubeTransport.ts';

/** Options of `kubeLeaseClient`. */
export interface KubeLeaseClientOptions {
  /** The transport to send through. Default: `sharedKubeTransport(kc)`. */
  transport?: KubeTransport;
}

/**
 * Gets, creates and updates Leases with the KubeConfig's current context. A 409 is a
 * `KubeApiError` (a lost race for leader election), a failed connection a `NetworkError`.
 *
 * @example
 * const election = leaderElection({ client: kubeLeaseClient(kc), namespace: 'kube-system', name: 'my-controller', identity: os.hostname() });
 */
export function kubeLeaseClient(kc: KubeConfig, options: KubeLeaseClientOptions = {}): LeaseClient {
  const transport = options.transport ?? sharedKubeTransport(kc);
  return httpLeaseClient(transport.send);
}
