/**
 * The `ApiClient` of @rxinformer/controller over a client-node `KubeConfig`: its credentials and
 * TLS, through the same keep-alive connections as the ListerWatchers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { httpApiClient, type ApiClient } from '@rxinformer/controller';
import { sharedKubeTransport, type KubeTransport } from './kubeTransport.ts';

/** Options of `kubeApiClient`. */
export interface KubeApiClientOptions {
  /** The transport to send through. Default: `sharedKubeTransport(kc)`. */
  transport?: KubeTransport;
}

/**
 * Sends the writes of @rxinformer/controller with the KubeConfig's current context. An error answer
 * is an `ApiError` (with the Status), a failed connection a `NetworkError`.
 *
 * @example
 * const cms = resourceApi(kubeApiClient(kc), configMaps);
 * await cms.update(cm, (d) => { d.data = { ...d.data, mode: 'fast' }; });
 */
export function kubeApiClient(kc: KubeConfig, options: KubeApiClientOptions = {}): ApiClient {
  const transport = options.transport ?? sharedKubeTransport(kc);
  return httpApiClient(transport.request);
}
