/**
 * The example dashboard (examples/dashboard) as a user runs it: installed from the tarballs with
 * Vite and React 19 from its lockfile, type-checked, built by Vite, served with the hub by its own
 * server, on the simulator it embeds (`--sim`) and on a real kube-apiserver (by kubeconfig), and
 * driven in headless Chromium: ten kinds live over one WebSocket, one API server watch per kind
 * whatever the number of tabs, and each user shown what RBAC lets them list.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { browserTestsRun, launchChromium } from '@rxinformer/browser-example/chromium';
import { createApi, serverKinds, START_TIMEOUT_MS, startTestServer, type TestApi, type TestServer } from '@rxinformer/testing/servers';
import { createConsumer, type Consumer } from './consumer.ts';
import { openDashboard, startDashboardServer, type DashboardServer, type DashboardTab } from './dashboardPage.ts';
import { packedFromManifest } from './pack.ts';

const describeInBrowser = browserTestsRun('the example dashboard test') ? describe : describe.skip;

/** What the example installs from the tarballs (client-node needs controller). */
const PACKAGES = [
  '@rxinformer/core',
  '@rxinformer/react',
  '@rxinformer/hub',
  '@rxinformer/client-node',
  '@rxinformer/controller',
  '@rxinformer/apiserver-sim',
];

/** The ten kinds, by the collection path of each across namespaces. */
const KINDS: Record<string, string> = {
  pods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  deployments: '/apis/apps/v1/deployments',
  events: '/api/v1/events',
  namespaces: '/api/v1/namespaces',
  services: '/api/v1/services',
  configmaps: '/api/v1/configmaps',
  replicasets: '/apis/apps/v1/replicasets',
  statefulsets: '/apis/apps/v1/statefulsets',
  jobs: '/apis/batch/v1/jobs',
};
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WAIT = { timeout: 60_000 };

describeInBrowser('the example dashboard, built by Vite, through the hub', () => {
  let consumer: Consumer;
  let browser: Browser;

  beforeAll(async () => {
    consumer = await createConsumer(
      'dashboard',
      packedFromManifest().filter((p) => PACKAGES.includes(p.name)),
    );
    await consumer.run('npm', ['run', 'typecheck']);
    await consumer.run('npm', ['run', 'build']);
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await consumer?.dispose();
  });

  it("should build with the Vite of its lockfile, and React's production build", () => {
    const lock = JSON.parse(readFileSync(join(consumer.dir, 'package-lock.json'), 'utf8'));
    const installed = JSON.parse(readFileSync(join(consumer.dir, 'node_modules/vite/package.json'), 'utf8'));
    expect(installed.version).toBe(lock.packages['node_modules/vite'].version);
    const html = readFileSync(join(consumer.dir, 'dist/index.html'), 'utf8');
    const [, script] = /<script type="module" crossorigin src="\/(assets\/[^"]+\.js)"/.exec(html) ?? [];
    expect(script).toBeDefined();
    const js = readFileSync(join(consumer.dir, 'dist', script), 'utf8');
    expect(js).not.toContain('react-dom.development');
    expect(js).not.toMatch(/from\s*["']node:/);
  });

  describe.each(serverKinds())('on the %s server', (kind) => {
    let server: TestServer | undefined;
    let api: TestApi;
    let dashboard: DashboardServer;
    let adminToken: string;
    let admin: DashboardTab;

    beforeAll(async () => {
      if (kind === 'sim') {
        adminToken = 'token-of-bob';
        writeFileSync(join(consumer.dir, 'tokens.csv'), `${adminToken},bob,,"system:masters"\n`);
        dashboard = await startDashboardServer(consumer, ['--sim', '--tokens', 'tokens.csv', '--recheck-seconds', '1']);
        const [, simUrl] = await dashboard.running.waitFor(/simulator at (http:\/\/\S+)/);
        // The simulator's admin, as the server wrote its kubeconfig: the test's own client.
        const [, simToken] = /token: "?([^"\s]+)/.exec(readFileSync(join(consumer.dir, 'sim.kubeconfig'), 'utf8'))!;
        api = createApi({ url: simUrl, token: simToken });
      } else {
        server = await startTestServer('real');
        api = server.api;
        adminToken = server.credentials.token!;
        // Through the fault proxy: what the proxy sees open is what the hub holds on the API server.
        writeFileSync(join(consumer.dir, 'real.kubeconfig'), server.kubeConfig().exportConfig());
        dashboard = await startDashboardServer(consumer, ['--kubeconfig', 'real.kubeconfig', '--recheck-seconds', '1']);
      }
    }, START_TIMEOUT_MS);
    afterAll(async () => {
      await dashboard?.running.stop();
      if (server) await server.close();
      else await api?.close();
    });

    it('should sync all ten kinds over one WebSocket on one watch per kind, and show an object created after', async () => {
      admin = await openDashboard(browser, dashboard.url, adminToken);
      await admin.page.waitForSelector('#status[data-synced="10"][data-phase="watching"]', WAIT);
      const serverCounts = async () =>
        Object.fromEntries(await Promise.all(Object.entries(KINDS).map(async ([k, path]) => [k, (await api.get(path)).items.length])));
      await converge(() => admin.counts(), serverCounts, 'the counts of the ten kinds');

      const namespace = await newNamespace(api, 'dash');
      await api.create(`/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name: 'created-after-sync' } });
      await admin.page.click('nav button[data-kind="configmaps"]');
      await admin.page.waitForSelector(`tr[data-key="${namespace}/created-after-sync"]`, WAIT);
      // The namespace filter picks rows of the same informer: the server's configmaps of that namespace.
      await admin.page.selectOption('select[name="namespace"]', namespace);
      const inNamespace = async () =>
        (await api.get(`/api/v1/namespaces/${namespace}/configmaps`)).items
          .map((o: { metadata: { name: string } }) => `${namespace}/${o.metadata.name}`)
          .sort();
      await converge(() => admin.rows('configmaps'), inNamespace, 'the configmaps of the namespace picked');
      await admin.page.selectOption('select[name="namespace"]', '');

      expect(admin.sockets).toHaveLength(1);
      expect(await dashboard.metricsAfter(dashboard.running.output().length)).toEqual({ clients: 1, streams: 10, watches: 10 });
      if (server) expect(server.proxy.open('watches')).toBe(10);
      expect(admin.errors).toEqual([]);
    }, 120_000);

    it("should show user A namespace a only and user B all, on the same watches, and take A's rows on a revocation", async () => {
      const [a, b] = [await newNamespace(api, 'dash-a'), await newNamespace(api, 'dash-b')];
      for (const ns of [a, b]) await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `in-${ns}` } });
      const userA = await namespaceViewer(api, a);
      const tabA = await openDashboard(browser, dashboard.url, userA.token);
      await tabA.page.waitForSelector('#status [data-error-kind="nodes"]', WAIT); // cluster-scoped: refused
      await converge(
        () => tabA.rows('configmaps'),
        async () => [`${a}/in-${a}`],
        "A's configmaps",
      );
      await converge(
        () => admin.rows('configmaps'),
        async () => [`${a}/in-${a}`, `${b}/in-${b}`],
        "B's configmaps of a and b",
        true,
      );

      await api.create(`/api/v1/namespaces/${b}/configmaps`, { metadata: { name: 'later' } });
      await api.create(`/api/v1/namespaces/${a}/configmaps`, { metadata: { name: 'later' } });
      await converge(
        () => tabA.rows('configmaps'),
        async () => [`${a}/in-${a}`, `${a}/later`],
        "A's configmaps after writes",
      );
      await admin.page.waitForSelector(`tr[data-key="${b}/later"]`, WAIT);
      expect(tabA.sockets).toHaveLength(1);
      expect(await dashboard.metricsAfter(dashboard.running.output().length)).toMatchObject({ clients: 2, watches: 10 });
      if (server) expect(server.proxy.open('watches')).toBe(10);

      // A's last namespace revoked: the hub ends A's cluster-wide view with an empty grant (a relist
      // of nothing), so the rows go, with no error to show.
      await api.delete(`${RBAC}/namespaces/${a}/rolebindings/${userA.name}`);
      await converge(
        () => tabA.rows('configmaps'),
        async () => [],
        "A's configmaps after the revocation",
      );
      expect((await tabA.seen()).filter((key) => key.includes(`:${b}/`))).toEqual([]);
      expect((await admin.seen()).filter((key) => key.includes(`:${b}/`)).length).toBeGreaterThan(0);
      await tabA.page.close();
    }, 120_000);
  });
});

let serial = 0;

/** A new namespace named `prefix-<pid>-<n>`. */
async function newNamespace(api: TestApi, prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${++serial}`;
  await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** A ServiceAccount of `namespace` that may list and watch the dashboard's namespaced kinds there; its token. */
async function namespaceViewer(api: TestApi, namespace: string): Promise<{ name: string; token: string }> {
  const name = 'dashboard-viewer';
  await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  const request = await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  await api.create(`${RBAC}/namespaces/${namespace}/roles`, {
    metadata: { name },
    rules: [
      { apiGroups: [''], resources: ['pods', 'events', 'services', 'configmaps'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments', 'replicasets', 'statefulsets'], verbs: ['list', 'watch'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'watch'] },
    ],
  });
  await api.create(`${RBAC}/namespaces/${namespace}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  return { name, token: request.status.token };
}

/**
 * Waits until the page shows what the server holds (`subset`: the page's keys include the
 * server's), re-reading both; fails with the last of each after a minute.
 */
async function converge<T>(page: () => Promise<T>, want: () => Promise<T>, what: string, subset = false): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last: [T, T] | undefined;
  for (;;) {
    last = [await page(), await want()];
    const [shown, held] = last;
    const ok =
      subset && Array.isArray(shown) && Array.isArray(held)
        ? held.every((k) => shown.includes(k))
        : JSON.stringify(shown) === JSON.stringify(held);
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`${what}: the page shows ${JSON.stringify(last[0])}, the server holds ${JSON.stringify(last[1])}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
