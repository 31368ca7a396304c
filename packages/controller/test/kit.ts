/** What the controller package's server suites share: a client that counts what it sends, and resources. */
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import type { ApiClient, ApiRequest } from '../src/index.ts';

/** A ConfigMap, as the suites write them. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** A Pod, with what the suites read of it. */
export interface Pod extends KubeObject {
  spec?: { containers: { name: string; image: string }[] };
  status?: { message?: string; phase?: string };
}

/** core/v1 ConfigMaps. */
export const configMaps: ResourceDescriptor<ConfigMap> = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};

/** core/v1 Secrets. */
export const secrets: ResourceDescriptor = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };

/** core/v1 Pods. */
export const pods: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** `client`, recording each request and the bytes of its JSON body. */
export function counting(client: ApiClient): ApiClient & { sent: (ApiRequest & { bytes: number })[] } {
  const sent: (ApiRequest & { bytes: number })[] = [];
  return {
    sent,
    request: (req) => {
      sent.push({ ...req, bytes: req.body === undefined ? 0 : Buffer.byteLength(JSON.stringify(req.body)) });
      return client.request(req);
    },
  };
}
