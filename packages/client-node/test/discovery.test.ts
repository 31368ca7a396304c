import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  createDiscovery,
  createKubeInformerFactory,
  createKubeTransport,
  RequestTimeoutError,
  ResourceNotWatchableError,
  ResponseDecodeError,
  type KubeTransport,
} from '../src/index.ts';
import { FactoryShutdownError } from '@rxinformer/core';
import { until } from '@rxinformer/testing';

// Discovery against a small node:http API server whose answers the tests choose: resources that
// cannot be watched, a gateway's HTML page, and a server that accepts but never answers. (The
// simulator serves every resource with every verb, so it cannot show the first case.)
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let url: string;
let handler: Handler;

const json = (res: ServerResponse, body: unknown) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
};
const discoveryDocs: Handler = (req, res) => {
  if (req.url === '/api/v1') {
    return json(res, {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        { name: 'bindings', namespaced: true, kind: 'Binding', verbs: ['create'] },
        { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
      ],
    });
  }
  if (req.url === '/apis/metrics.k8s.io/v1beta1') {
    return json(res, {
      kind: 'APIResourceList',
      groupVersion: 'metrics.k8s.io/v1beta1',
      resources: [{ name: 'pods', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }],
    });
  }
  if (req.url === '/apis/legacy.example.com/v1') {
    return json(res, {
      kind: 'APIResourceList',
      groupVersion: 'legacy.example.com/v1',
      resources: [{ name: 'things', namespaced: false, kind: 'Thing' }],
    });
  }
  res.statusCode = 404;
  json(res, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
};

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function withTransport(run: (t: KubeTransport) => Promise<void>): Promise<void> {
  const transport = createKubeTransport(kubeConfig());
  try {
    await run(transport);
  } finally {
    await transport.close();
  }
}

describe('createDiscovery', () => {
  it('should keep a newer cached answer when an older fetch of the same group version fails later', async () => {
    const withPods = {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [{ name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list', 'watch'] }],
    };
    const full = {
      ...withPods,
      resources: [
        ...withPods.resources,
        { name: 'services', namespaced: true, kind: 'Service', verbs: ['list', 'watch'] },
        { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch'] },
      ],
    };
    let requests = 0;
    handler = (req, res) => {
      if (req.url !== '/api/v1') return discoveryDocs(req, res);
      const n = ++requests;
      if (n === 1) return json(res, withPods);
      if (n === 2) {
        setTimeout(() => {
          res.statusCode = 500;
          json(res, { kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
        }, 100);
        return;
      }
      json(res, full);
    };
    await withTransport(async (transport) => {
      const discovery = createDiscovery(transport);
      await discovery.resolve({ apiVersion: 'v1', kind: 'Pod' }); // caches the list without the others
      // Both miss in that list at once: two fresh fetches, the first slow and failing, the second good.
      const [service, configMap] = await Promise.allSettled([
        discovery.resolve({ apiVersion: 'v1', kind: 'Service' }),
        discovery.resolve({ apiVersion: 'v1', kind: 'ConfigMap' }),
      ]);
      expect(service.status).toBe('rejected');
      expect(configMap.status).toBe('fulfilled');
      // The failure must not have dropped the good answer cached after it.
      await discovery.resolve({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(requests).toBe(3);
    });
  });

  it('should refuse resources whose verbs lack list or watch with a ResourceNotWatchableError', async () => {
    handler = discoveryDocs;
    await withTransport(async (t) => {
      const discovery = createDiscovery(t);
      const metrics = await discovery.resolve({ apiVersion: 'metrics.k8s.io/v1beta1', kind: 'PodMetrics' }).catch((e: unknown) => e);
      expect(metrics).toBeInstanceOf(ResourceNotWatchableError);
      expect((metrics as ResourceNotWatchableError).reason).toBe('NotWatchable');
      expect((metrics as ResourceNotWatchableError).verbs).toEqual(['get', 'list']);
      await expect(discovery.resolve({ version: 'v1', resource: 'bindings' })).rejects.toThrow(
        /bindings cannot be listed and watched \(the server allows only: create\)/,
      );
      expect((await discovery.resolve({ version: 'v1', resource: 'pods' })).kind).toBe('Pod');
      // A discovery document without verbs (old aggregated servers) is taken at its word.
      expect((await discovery.resolve({ group: 'legacy.example.com', version: 'v1', resource: 'things' })).namespaced).toBe(false);
    });
  });

  it('should reject a discovery answer that is not JSON with a ResponseDecodeError', async () => {
    handler = (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!DOCTYPE html><title>Gateway</title>');
    };
    await withTransport(async (t) => {
      await expect(createDiscovery(t).resolve({ version: 'v1', resource: 'pods' })).rejects.toBeInstanceOf(ResponseDecodeError);
    });
  });

  it('should give up on a server that accepts but never answers with a RequestTimeoutError after timeoutMs', async () => {
    handler = () => undefined; // never answers
    await withTransport(async (t) => {
      const e = await createDiscovery(t, { timeoutMs: 300 })
        .resolve({ version: 'v1', resource: 'pods' })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestTimeoutError);
      expect(e).toMatchObject({ reason: 'Timeout', path: '/api/v1', timeoutMs: 300 });
    });
    server.closeAllConnections();
  });
});

describe('createKubeInformerFactory', () => {
  it('should abort a discovery in flight when closed', async () => {
    let asked = false;
    handler = () => void (asked = true); // never answers
    const factory = createKubeInformerFactory(kubeConfig());
    const pending = factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }).catch((e: unknown) => e);
    await until(() => asked, { what: 'the discovery request at the server' });
    await factory.close();
    const e = await pending;
    expect(e).toBeInstanceOf(FactoryShutdownError); // not a timeout: the caller closed
    server.closeAllConnections();
  });
});
