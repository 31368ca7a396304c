import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInformerFactory, KubeApiError, type InformerFactory, type ResourceDescriptor } from '@rxinformer/core';
import { hubListerWatcherSource, type WebSocketConstructor } from '@rxinformer/hub/browser';
import { until } from '@rxinformer/testing';
import { serverKinds, serviceAccountToken, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { WebSocket } from 'undici';
import { killAll, startCli } from './cliProcess.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

// `rxinformer hub --token-review --subject-access-review` as a real process over kube-apiserver (the
// hub's credentials: the kubeconfig's admin), a tab with a real ServiceAccount's token: it sees what
// its RoleBinding allows, is refused elsewhere (403), and once the ServiceAccount is deleted the
// hub's next re-check (TokenReview: unauthenticated) closes its connection with 4001. A static
// user's 40 informers through the same process each get a live watch of their own.
(serverKinds().includes('real') ? describe : describe.skip)('rxinformer hub with TokenReview and SubjectAccessReview', () => {
  let server: TestServer;
  let dir: string;
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer('real');
    dir = mkdtempSync(join(tmpdir(), 'hub-auth-'));
    writeFileSync(join(dir, 'kubeconfig'), server.kubeConfig().exportConfig(), { mode: 0o600 });
    writeFileSync(join(dir, 'users.csv'), 'token-admin,admin,u0,"system:masters"\n', { mode: 0o600 });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    killAll();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('should serve a ServiceAccount what RBAC allows it, a static user 40 watches, and close the revoked one', async () => {
    const [ns, other] = [await server.namespace('hub-sa'), await server.namespace('hub-sa-other')];
    const sa = await serviceAccountToken(server, ns, 'viewer');
    await server.api.create(`${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: 'viewer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] }],
    });
    await server.api.create(`${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: 'viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: ns }],
    });
    for (const name of ['one', 'two']) await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });

    const hub = startCli([
      'hub',
      '--kubeconfig',
      join(dir, 'kubeconfig'),
      '--token-auth-file',
      join(dir, 'users.csv'),
      '--token-review',
      '--subject-access-review',
      '--review-cache-seconds',
      '1',
      '--recheck-seconds',
      '0.5',
      '--port',
      '0',
      '--metrics-port',
      '0',
    ]);
    let out = '';
    hub.child.stdout!.on('data', (d: string) => (out += d));
    await hub.waitFor(/"hub":".*\n/);
    const printed = JSON.parse(out.split('\n')[0]) as { hub: string; metrics: string };

    const closes: number[] = [];
    const Recording = class extends WebSocket {
      constructor(url: string, protocols?: string[]) {
        super(url, protocols);
        this.addEventListener('close', (e) => closes.push(e.code));
      }
    };
    const source = hubListerWatcherSource(`${printed.hub.replace('http', 'ws')}/hub`, {
      token: () => sa.token,
      WebSocket: Recording as unknown as WebSocketConstructor,
      reconnectBackoff: { initialMs: 100, maxMs: 1000 },
    });
    const factory = createInformerFactory(source);
    factories.push(factory);
    const mine = factory.informerFor(CONFIGMAPS, { namespace: ns });
    const elsewhere = factory.informerFor(CONFIGMAPS, { namespace: other });
    factory.start();
    const names = () =>
      mine
        .getStore()
        .list()
        .map((o) => o.metadata?.name)
        .filter((n) => n !== 'kube-root-ca.crt')
        .sort();
    await until(() => names().join() === 'one,two', { timeoutMs: 60_000, what: "the ServiceAccount's configmaps through the hub" });
    let refused: Error | undefined;
    await until(() => (elsewhere.status$.subscribe((s) => (refused = s.lastError)).unsubscribe(), refused !== undefined), {
      timeoutMs: 60_000,
      what: 'the namespace it may not list refused',
    });
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).code).toBe(403);
    expect(closes).toEqual([]);

    // A static user (the token file before TokenReview) with more informers than the 32 connections
    // of a capped pool: each scope is a watch of its own on kube-apiserver, and each one syncs.
    const admin = createInformerFactory(
      hubListerWatcherSource(`${printed.hub.replace('http', 'ws')}/hub`, {
        token: () => 'token-admin',
        WebSocket: WebSocket as unknown as WebSocketConstructor,
      }),
    );
    factories.push(admin);
    const scopes = Array.from({ length: 40 }, (_, i) => admin.informerFor(CONFIGMAPS, { namespace: ns, labelSelector: `shard!=s${i}` }));
    admin.start();
    await until(() => scopes.every((i) => i.hasSynced()), { timeoutMs: 60_000, what: "the admin's 40 informers synced" });
    await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' } });
    const watching = () =>
      scopes.filter((i) =>
        i
          .getStore()
          .list()
          .some((o) => o.metadata?.name === 'late'),
      ).length;
    await until(() => watching() === 40, { timeoutMs: 60_000, what: 'every one of the 40 watches live' });

    await server.api.delete(`/api/v1/namespaces/${ns}/serviceaccounts/viewer`);
    await until(() => closes.includes(4001), { timeoutMs: 60_000, what: 'the connection closed once the token was revoked' });
    const metrics = await (await fetch(`${printed.metrics}/metrics`)).text();
    expect(metrics).toMatch(/^rxinformer_hub_connections_closed_total\{[^}]*why="credentialRevoked"[^}]*\} 1$/m);
  }, 120_000);
});
