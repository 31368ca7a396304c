import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { ReflectorStatus } from '@rxinformer/core';
import { createKubeInformerFactory, createKubeTransport, pods, type KubeInformerFactory } from '../src/index.ts';
import { makePki, type Pki } from '@rxinformer/testing/servers';
import { storeView, view, waitFor } from './simHarness.ts';

// The KubeConfig's TLS options end to end: the simulator over HTTPS with a CA of the test's own
// and client-certificate authentication, certificates made by openssl for this run.

const fast = { minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 50, maxMs: 200 } };

describe('createKubeInformerFactory over TLS', () => {
  let dir: string;
  let pki: Pki;
  let sim: ApiServer;
  const factories: KubeInformerFactory[] = [];
  const factory = (kc: KubeConfig) => {
    const f = createKubeInformerFactory(kc);
    factories.push(f);
    return f;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxinformer-tls-'));
    pki = makePki(dir);
    sim = await startApiServer({
      port: 0,
      seed: 9,
      tls: { cert: pki.cert, key: pki.key, ca: pki.ca, clientCa: pki.ca, client: { cert: pki.clientCert, key: pki.clientKey } },
    });
    sim.storage.create('namespaces', { metadata: { name: 'tls' } });
    createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: ['tls'], seed: 4 }).seed(1200);
  });
  afterAll(async () => {
    for (const f of factories) await f.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('should verify the server with the kubeconfig CA, authenticate with its client certificate, and reuse one connection for every page and watch', async () => {
    expect(sim.url).toMatch(/^https:\/\//);
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml()); // certificate-authority-data, client-certificate-data, client-key-data
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBeFalsy();
    const f = factory(kc);
    const informer = f.informerFor(pods, { reflector: { ...fast, pageSize: 300 } });
    const before = sim.tlsHandshakes;
    f.start();
    await f.waitForCacheSync();
    expect(storeView(informer.getStore())).toEqual(view(sim.storage.list('pods')));
    expect(informer.getStore().size).toBe(1200);
    // A live change arrives over the watch.
    const created = sim.storage.create(
      'pods',
      { metadata: { name: 'over-tls' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      'tls',
    );
    expect(await waitFor(() => informer.getStore().get('tls/over-tls')?.metadata?.uid === created.metadata?.uid)).toBe(true);
    // Four list pages and a watch: connections are kept alive and reused, not one per request
    // (client-node makes a new agent, so a new handshake, per request when TLS options are set).
    expect(sim.tlsHandshakes - before).toBeGreaterThanOrEqual(1);
    expect(sim.tlsHandshakes - before).toBeLessThanOrEqual(2);
  });

  /** The simulator's kubeconfig changed by `edit`, its pods informer run until `backoffs` failures. */
  const failingSync = async (edit: (kc: KubeConfig) => void, backoffs: number) => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    edit(kc);
    const f = factory(kc);
    const informer = f.informerFor(pods, { reflector: fast });
    const statuses: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => statuses.push(s));
    f.start();
    expect(await waitFor(() => statuses.filter((s) => s.phase === 'backingOff').length >= backoffs)).toBe(true);
    f.shutdown();
    expect(informer.hasSynced()).toBe(false);
    return statuses;
  };

  it('should refuse a server its CA did not sign, report the TLS error and back off, never syncing', async () => {
    const statuses = await failingSync((kc) => {
      kc.clusters[0] = { ...kc.clusters[0]!, caData: Buffer.from(pki.otherCa).toString('base64') };
    }, 3);
    const failed = statuses.filter((s) => s.phase === 'backingOff');
    const errorText = (e: unknown): string =>
      e instanceof Error ? `${e.message} ${errorText(e.cause)} ${(e as { code?: string }).code ?? ''}` : '';
    expect(errorText(failed[0]!.lastError)).toMatch(/certificate|self[- ]signed|UNABLE_TO_VERIFY|CERT/i);
    expect(failed.every((s) => (s.backoffMs ?? 0) >= 50)).toBe(true);
  });

  it('should be refused by a server that requires a client certificate when the kubeconfig has none', async () => {
    const handshakesBefore = sim.tlsHandshakes;
    const statuses = await failingSync((kc) => {
      kc.users[0] = { name: kc.users[0]!.name };
    }, 1);
    // TLS 1.3: the server refuses the client after the client's side of the handshake, so the
    // client sees its socket closed; the server never accepted a connection from it.
    const error = statuses.find((s) => s.phase === 'backingOff')!.lastError as Error & { code?: string };
    expect(`${error.message} ${error.code}`).toMatch(/closed|UND_ERR_SOCKET|certificate|ECONNRESET/i);
    expect(sim.tlsHandshakes).toBe(handshakesBefore);
  });

  it('should use a rotated client certificate for the next request, without cutting a watch opened with the old one', async () => {
    const certFile = join(dir, 'rotating.crt');
    const keyFile = join(dir, 'rotating.key');
    const install = (cert: string, key: string) => {
      writeFileSync(certFile, cert);
      writeFileSync(keyFile, key);
    };
    install(pki.clientCert, pki.clientKey);
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    kc.users[0] = { name: kc.users[0]!.name, certFile, keyFile }; // re-read by client-node on every request
    const transport = createKubeTransport(kc);
    const namespaces = () => transport.getJson<{ kind: string }>('/api/v1/namespaces').then((l) => l.kind);
    try {
      expect(await namespaces()).toBe('NamespaceList');
      const watchAbort = new AbortController();
      const watch = await transport.get(
        '/api/v1/namespaces/tls/configmaps?watch=true&allowWatchBookmarks=false',
        watchAbort.signal,
        'watch',
      );
      expect(watch.status).toBe(200);

      // A certificate the server does not trust: refused, so it really is the one sent (the kept-alive
      // connection made with the old certificate would have been accepted).
      install(pki.otherCa, pki.otherKey);
      await expect(namespaces()).rejects.toThrow();
      const handshakes = sim.tlsHandshakes;
      install(pki.client2Cert, pki.client2Key);
      expect(await namespaces()).toBe('NamespaceList');
      expect(sim.tlsHandshakes).toBe(handshakes + 1);

      // The watch opened before both rotations still delivers.
      sim.storage.create('configmaps', { metadata: { name: 'after-rotation' } }, 'tls');
      let text = '';
      for await (const chunk of watch.chunks()) {
        text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        if (text.includes('after-rotation')) break;
      }
      expect(text).toContain('"ADDED"');
      watchAbort.abort();
    } finally {
      await transport.close();
    }
  });
});
