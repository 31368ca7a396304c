/** What the controller package's server suites share: a server per suite with a namespace and clients, a client that counts what it sends, and resources. */
import { afterAll, beforeAll } from '@jest/globals';
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import { START_TIMEOUT_MS, startTestServer, type ServerKind, type TestServer } from '@rxinformer/testing/servers';
import { fetchApiClient, resourceApi, type ApiClient, type ApiRequest, type ResourceApi } from '../src/index.ts';

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

/** What a server suite's cases use: its server, a namespace of their own, a fetch client and ConfigMaps there. */
export interface ServerSuite {
  server: TestServer;
  ns: string;
  client: ApiClient;
  cms: ResourceApi<ConfigMap>;
  /** A ConfigMap `name` in `ns`. */
  cm(name: string): ConfigMap;
}

/** Starts a `kind` server before the suite's cases (and closes it after), with a namespace `prefix-…`; its fields are set once they run. */
export function serverSuite(kind: ServerKind, prefix: string): ServerSuite {
  const suite = {
    cm: (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: suite.ns, name }, data: { a: '1' } }),
  } as ServerSuite;
  beforeAll(async () => {
    suite.server = await startTestServer(kind);
    suite.ns = await suite.server.namespace(prefix);
    suite.client = fetchApiClient(suite.server.fetchOptions());
    suite.cms = resourceApi(suite.client, configMaps);
  }, START_TIMEOUT_MS);
  afterAll(() => suite.server?.close());
  return suite;
}
