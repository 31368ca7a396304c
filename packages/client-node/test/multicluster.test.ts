/**
 * Many clusters over real HTTP: three API servers (simulators, or three kube-apiservers with their
 * etcds from envtest) as the clusters of the kubeconfig providers and the Cluster API provider, a
 * multi-cluster factory's views across them, a controller reconciling `cluster://` requests on two
 * of them, and on kube-apiserver one server killed and restarted while the others go on.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { controllerFor } from '@rxinformer/controller';
import type { KubeObject, ReflectorStatus } from '@rxinformer/core';
import {
  createMultiClusterFactory,
  type ClusterDelta,
  type ClusterProviderStatus,
  type MultiClusterFactory,
} from '@rxinformer/core/multicluster';
import { multiClusterInformerMetrics } from '@rxinformer/prometheus';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { Registry } from 'prom-client';
import {
  CLUSTER_NAME_LABEL,
  CLUSTER_SECRET_TYPE,
  clusterApiProvider,
  configMaps,
  kubeClusterClients,
  kubeconfigContextsProvider,
  kubeconfigFolderProvider,
  type KubeCluster,
} from '../src/index.ts';
import { waitFor } from './simHarness.ts';

const NAMES = ['alpha', 'beta', 'gamma'] as const;
/** Waits on a loaded machine: generous, never a timed assertion. */
const LONG = 90_000;

/** One KubeConfig with a context (cluster and user) per server, named as `names`. */
function contextsOf(servers: readonly TestServer[], names: readonly string[]): KubeConfig {
  const parts = servers.map((s, i) => {
    const kc = s.kubeConfig();
    return { cluster: { ...kc.clusters[0], name: names[i] }, user: { ...kc.users[0], name: names[i] } };
  });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: parts.map((p) => p.cluster),
    users: parts.map((p) => p.user),
    contexts: names.map((name) => ({ name, cluster: name, user: name, namespace: 'default' })),
    currentContext: names[0],
  });
  return kc;
}

/** A kubeconfig file's text for one server (JSON is YAML). */
const kubeconfigText = (server: TestServer): string => server.kubeConfig().exportConfig();

describe.each(serverKinds())('many clusters against three %s servers', (kind) => {
  let servers: TestServer[] = [];
  let serial = 0;
  beforeAll(async () => {
    servers = await Promise.all(NAMES.map(() => startTestServer(kind)));
  }, START_TIMEOUT_MS);
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const fleets: MultiClusterFactory[] = [];
  const fleet = <C extends KubeCluster>(f: MultiClusterFactory<C>) => (fleets.push(f as unknown as MultiClusterFactory), f);
  afterAll(() => fleets.forEach((f) => f.shutdown()));

  /** A namespace of the same name on every server. */
  const namespace = async (): Promise<string> => {
    const name = `mc-${process.pid}-${++serial}`;
    await Promise.all(servers.map((s) => s.api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
    return name;
  };
  const createConfigMap = (server: TestServer, ns: string, name: string) =>
    server.api.create(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { at: name },
    });

  it(
    'should key the objects of every context of a kubeconfig with its cluster, and label its metrics by cluster',
    async () => {
      const ns = await namespace();
      await Promise.all(servers.map((s, i) => createConfigMap(s, ns, `before-${NAMES[i]}`)));
      const f = fleet(createMultiClusterFactory(kubeconfigContextsProvider(contextsOf(servers, NAMES))));
      const view = f.informerFor(configMaps, { namespace: ns });
      const registry = new Registry();
      multiClusterInformerMetrics(view, { name: 'configmaps', registry });
      f.start();
      await f.waitForCacheSync({ timeoutMs: LONG });
      expect([...view.getStore().keys()].sort()).toEqual(NAMES.map((n) => `cluster://${n}/${ns}/before-${n}`));
      await Promise.all(servers.map((s, i) => createConfigMap(s, ns, `after-${NAMES[i]}`)));
      expect(await waitFor(() => view.getStore().size === 6, LONG)).toBe(true);
      expect(view.getStore().get(`cluster://gamma/${ns}/after-gamma`)?.data).toEqual({ at: 'after-gamma' });
      expect(view.informerOf('beta')!.getStore().get(`${ns}/after-beta`)).toBeDefined(); // each cluster's informer is a normal one
      const text = await registry.metrics();
      for (const n of NAMES) expect(text).toContain(`rxinformer_informer_objects{informer="configmaps",cluster="${n}"} 2`);
      f.shutdown();
    },
    LONG * 2,
  );

  it(
    'should join, rejoin and leave clusters as kubeconfig files come, change and go, and keep a cluster whose file breaks',
    async () => {
      const ns = await namespace();
      await Promise.all(servers.map((s, i) => createConfigMap(s, ns, `cm-${NAMES[i]}`)));
      const dir = mkdtempSync(join(tmpdir(), 'rxinformer-fleet-'));
      try {
        writeFileSync(join(dir, 'alpha.yaml'), kubeconfigText(servers[0]));
        writeFileSync(join(dir, 'beta.kubeconfig'), kubeconfigText(servers[1]));
        writeFileSync(join(dir, '.hidden'), 'not a cluster');
        const provider = kubeconfigFolderProvider(dir, { debounceMs: 50 });
        let status: ClusterProviderStatus = { errors: new Map() };
        provider.status$!.subscribe((s) => (status = s));
        const f = fleet(createMultiClusterFactory(provider));
        const view = f.informerFor(configMaps, { namespace: ns });
        const left: ClusterDelta<KubeObject>[] = [];
        view.events$.subscribe((d) => d.clusterLeft && left.push(d));
        f.start();
        await f.waitForCacheSync({ timeoutMs: LONG });
        expect([...view.getStore().keys()].sort()).toEqual([`cluster://alpha/${ns}/cm-alpha`, `cluster://beta/${ns}/cm-beta`]);

        writeFileSync(join(dir, 'gamma.yml'), kubeconfigText(servers[2])); // joins
        expect(await waitFor(() => view.getStore().get(`cluster://gamma/${ns}/cm-gamma`) !== undefined, LONG)).toBe(true);

        unlinkSync(join(dir, 'beta.kubeconfig')); // leaves: its objects leave the view
        expect(await waitFor(() => !f.clusters().includes('beta'), LONG)).toBe(true);
        expect(left.map((d) => d.key)).toEqual([`cluster://beta/${ns}/cm-beta`]);
        expect(view.getStore().get(`cluster://beta/${ns}/cm-beta`)).toBeUndefined();

        writeFileSync(join(dir, 'alpha.yaml'), 'clusters: [ this is not'); // breaks: alpha stays as it was
        expect(await waitFor(() => status.errors.has(join(dir, 'alpha.yaml')), LONG)).toBe(true);
        expect(status.errors.get(join(dir, 'alpha.yaml'))).toMatchObject({ name: 'ClusterSourceError', reason: 'InvalidKubeconfig' });
        expect([...f.clusters()].sort()).toEqual(['alpha', 'gamma']);
        await createConfigMap(servers[0], ns, 'still-alpha');
        expect(await waitFor(() => view.getStore().get(`cluster://alpha/${ns}/still-alpha`) !== undefined, LONG)).toBe(true);

        writeFileSync(join(dir, 'alpha.yaml'), kubeconfigText(servers[1])); // fixed, to another server: alpha rejoins there
        expect(await waitFor(() => view.getStore().get(`cluster://alpha/${ns}/cm-beta`) !== undefined, LONG)).toBe(true);
        expect(view.getStore().get(`cluster://alpha/${ns}/still-alpha`)).toBeUndefined();
        expect(status.errors.size).toBe(0);
        f.shutdown();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    LONG * 4,
  );

  it(
    "should make Cluster API's kubeconfig Secrets clusters, and end a cluster whose Secret is deleted",
    async () => {
      const ns = await namespace();
      await Promise.all(servers.map((s, i) => createConfigMap(s, ns, `cm-${NAMES[i]}`)));
      const management = servers[0];
      const secret = (name: string, cluster: string, data: Record<string, string>) =>
        management.api.create(`/api/v1/namespaces/${ns}/secrets`, {
          apiVersion: 'v1',
          kind: 'Secret',
          type: CLUSTER_SECRET_TYPE,
          metadata: { name, labels: { [CLUSTER_NAME_LABEL]: cluster } },
          data,
        });
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      await secret('beta-kubeconfig', 'beta', { value: b64(kubeconfigText(servers[1])) });
      await secret('gamma-kubeconfig', 'gamma', { value: b64(kubeconfigText(servers[2])) });
      await secret('gamma-ca', 'gamma', { 'tls.crt': b64('not a kubeconfig, not read') });
      await secret('broken-kubeconfig', 'broken', { value: b64('{ not yaml') });
      const provider = clusterApiProvider(management.kubeConfig(), { namespace: ns });
      let status: ClusterProviderStatus = { errors: new Map() };
      provider.status$!.subscribe((s) => (status = s));
      const f = fleet(createMultiClusterFactory(provider));
      const view = f.informerFor(configMaps, { namespace: ns });
      f.start();
      await f.waitForCacheSync({ timeoutMs: LONG });
      expect([...f.clusters()].sort()).toEqual(['beta', 'gamma']);
      expect([...view.getStore().keys()].sort()).toEqual([`cluster://beta/${ns}/cm-beta`, `cluster://gamma/${ns}/cm-gamma`]);
      expect(status.errors.get(`${ns}/broken-kubeconfig`)).toMatchObject({ name: 'ClusterSourceError', reason: 'InvalidKubeconfig' });
      await management.api.delete(`/api/v1/namespaces/${ns}/secrets/gamma-kubeconfig`);
      expect(await waitFor(() => view.getStore().get(`cluster://gamma/${ns}/cm-gamma`) === undefined, LONG)).toBe(true);
      expect(f.clusters()).toEqual(['beta']);
      f.shutdown();
    },
    LONG * 2,
  );

  it(
    'should reconcile cluster:// requests on two clusters, writing each to its own cluster',
    async () => {
      const ns = await namespace();
      const two = servers.slice(0, 2);
      await Promise.all(two.map((s) => Promise.all([createConfigMap(s, ns, 'one'), createConfigMap(s, ns, 'two')])));
      const f = fleet(createMultiClusterFactory(kubeconfigContextsProvider(contextsOf(two, NAMES.slice(0, 2)))));
      const requests: string[] = [];
      const ctl = controllerFor(f, configMaps, {
        name: 'stamp',
        namespace: ns,
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
        client: kubeClusterClients(f),
      }).reconcile(async (req) => {
        requests.push(`${req.cluster} ${req.namespace}/${req.name}`);
        if (req.object === undefined || req.object.metadata?.annotations?.['stamped-in'] !== undefined) return;
        await req.api(configMaps).update(req.object, (d) => {
          d.metadata!.annotations = { ...d.metadata!.annotations, 'stamped-in': req.cluster! };
        });
      });
      const running = ctl.start();
      try {
        const stamped = async () => {
          const lists = await Promise.all(two.map((s) => s.api.get(`/api/v1/namespaces/${ns}/configmaps`)));
          return lists.map((l, i) => (l.items as KubeObject[]).map((cm) => `${NAMES[i]}:${cm.metadata?.annotations?.['stamped-in']}`));
        };
        expect(await waitFor(async () => (await stamped()).flat().every((s) => !s.endsWith('undefined')), LONG)).toBe(true);
        expect(await stamped()).toEqual([
          ['alpha:alpha', 'alpha:alpha'],
          ['beta:beta', 'beta:beta'],
        ]);
        expect(new Set(requests)).toEqual(new Set([`alpha ${ns}/one`, `alpha ${ns}/two`, `beta ${ns}/one`, `beta ${ns}/two`]));
      } finally {
        await running.stop();
        f.shutdown();
      }
    },
    LONG * 2,
  );

  (kind === 'real' ? it : it.skip)(
    'should show a killed cluster failing on its status while the others go on, and resync it once restarted',
    async () => {
      const ns = await namespace();
      const f = fleet(createMultiClusterFactory(kubeconfigContextsProvider(contextsOf(servers, NAMES))));
      const view = f.informerFor(configMaps, { namespace: ns, reflector: { backoff: { initialMs: 100, maxMs: 1000 } } });
      const ofGamma: ReflectorStatus[] = [];
      view.clusterStatus$.subscribe(({ cluster, status }) => cluster === 'gamma' && ofGamma.push(status));
      f.start();
      await f.waitForCacheSync({ timeoutMs: LONG });
      const restarted = servers[2].restart({ kill: true });
      expect(await waitFor(() => ofGamma.some((s) => s.phase === 'backingOff' && s.lastError !== undefined), LONG)).toBe(true);
      await createConfigMap(servers[0], ns, 'while-gamma-is-down'); // the others go on
      expect(await waitFor(() => view.getStore().get(`cluster://alpha/${ns}/while-gamma-is-down`) !== undefined, LONG)).toBe(true);
      await restarted;
      await createConfigMap(servers[2], ns, 'after-restart');
      expect(await waitFor(() => view.getStore().get(`cluster://gamma/${ns}/after-restart`) !== undefined, LONG)).toBe(true);
      expect(view.getClusterStatus().get('gamma')?.phase).toBe('watching');
      f.shutdown();
    },
    LONG * 3,
  );
});
