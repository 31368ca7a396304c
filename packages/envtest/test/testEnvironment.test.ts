import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BinaryNotFoundError,
  buildBinaries,
  builtDir,
  BuildError,
  findBinaries,
  InvalidOptionsError,
  PortInUseError,
  ProcessExitedError,
  startTestEnvironment,
  type TestEnvironment,
} from '../src/index.ts';

// A real etcd and kube-apiserver (built by `npm run testenv:build`, which `npm test` runs first).
const START = 120_000;

describe('startTestEnvironment', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await startTestEnvironment({ featureGates: { ShardedListAndWatch: true } });
  }, START);
  afterAll(() => env?.stop());

  it('should serve the Kubernetes version it was built from, with RBAC and a system:masters token', async () => {
    const kc = env.kubeConfig();
    const version = await fetchJson(env, '/version');
    expect(version.gitVersion).toMatch(/^v1\.36\.\d+$/);
    expect(version.minor).toBe('36');
    const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata!.name)).toEqual(expect.arrayContaining(['default', 'kube-system']));
    expect(readFileSync(env.kubeconfigPath, 'utf8')).toBe(env.kubeconfigYaml);
    const review = await fetchJson(env, '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(review.status.userInfo.groups).toContain('system:masters');
  });

  it(
    'should keep its data over an apiserver restart and a kill, and expire old lists after a compaction',
    async () => {
      const api = env.kubeConfig().makeApiClient(CoreV1Api);
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'kept' }, data: { a: '1' } } });
      const listed = await api.listNamespacedConfigMap({ namespace: 'default' });
      const before = listed.metadata!.resourceVersion!;
      await env.restartApiServer();
      await env.restartApiServer({ kill: true });
      expect((await api.readNamespacedConfigMap({ namespace: 'default', name: 'kept' })).data).toEqual({ a: '1' });
      const exact = `/api/v1/namespaces/default/configmaps?resourceVersion=${before}&resourceVersionMatch=Exact`;
      expect((await fetchJson(env, exact)).kind).toBe('ConfigMapList');
      const rev = await env.compact();
      expect(rev).toBeGreaterThan(Number(before));
      const expired = await fetchJson(env, exact);
      expect([expired.code, expired.reason, expired.message]).toEqual([
        410,
        'Expired',
        'The resourceVersion for the provided list is too old.',
      ]);
    },
    START,
  );

  it('should turn the feature gates it was given on', async () => {
    expect(env.featureGates).toEqual({ ShardedListAndWatch: true });
    const selector = "shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')";
    const list = await fetchJson(env, `/api/v1/namespaces?shardSelector=${encodeURIComponent(selector)}`);
    expect(list.metadata.shardInfo).toEqual({ selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" });
  });
});

describe('the errors of startTestEnvironment', () => {
  // How the environment ends with the program that started it: processEnd.test.ts.
  it('should name the missing binary and how to get it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'envtest-empty-'));
    try {
      expect(() => findBinaries({ assetsDir: empty })).toThrow(BinaryNotFoundError);
      expect(() => findBinaries({ env: { KUBEBUILDER_ASSETS: empty } })).toThrow(/KUBEBUILDER_ASSETS.*rxinformer-envtest build/s);
      expect(() => findBinaries({ env: {}, cacheDir: empty })).toThrow(/etcd and kube-apiserver not found/);
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  it(
    'should report a taken port, and an etcd that dies at start, naming the log file',
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as { port: number }).port;
      try {
        const error = await startTestEnvironment({ port }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PortInUseError);
        expect((error as PortInUseError).port).toBe(port);
        expect(existsSync((error as PortInUseError).logFile)).toBe(false); // the folder is removed, the message names it
        expect((error as Error).message).toMatch(/kube-apiserver\.log/);
      } finally {
        taken.close();
      }
      const assets = mkdtempSync(join(tmpdir(), 'envtest-broken-'));
      try {
        writeFileSync(join(assets, 'etcd'), '#!/bin/sh\necho "etcd: cannot open the data folder: disk on fire" >&2\nexit 3\n');
        writeFileSync(join(assets, 'kube-apiserver'), '#!/bin/sh\nexit 0\n');
        chmodSync(join(assets, 'etcd'), 0o755);
        chmodSync(join(assets, 'kube-apiserver'), 0o755);
        const error = await startTestEnvironment({ assetsDir: assets }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProcessExitedError);
        expect((error as ProcessExitedError).code).toBe(3);
        expect((error as Error).message).toMatch(
          /etcd exited with code 3; its log is .*etcd\.log; it ends with:\netcd: cannot open the data folder: disk on fire/,
        );
      } finally {
        rmSync(assets, { recursive: true });
      }
    },
    START,
  );

  it('should refuse absurd options with a typed error', async () => {
    await expect(startTestEnvironment({ startTimeoutMs: -1 })).rejects.toBeInstanceOf(InvalidOptionsError);
    await expect(startTestEnvironment({ port: 70_000 })).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

describe('buildBinaries', () => {
  it('should do nothing when the binaries of this go.mod and go.sum are current', async () => {
    const current = findBinaries({ env: {} });
    expect(current.from).toBe('built');
    const result = await buildBinaries({ env: {} });
    expect(result).toEqual({ dir: builtDir({ env: {} }), built: false, ms: 0 });
  });

  it('should report a build that cannot run Go as a BuildError naming its log', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'envtest-cache-'));
    try {
      const error = await buildBinaries({ cacheDir: cache, go: join(cache, 'no-go-here') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BuildError);
      expect((error as BuildError).logFile).toBe(join(cache, 'build.log'));
      expect((error as Error).message).toMatch(/could not run .*no-go-here.*Go 1\.26/);
    } finally {
      rmSync(cache, { recursive: true });
    }
  });
});

/** A JSON call with the environment's token and CA (its own HTTPS, independent of the code under test). */
async function fetchJson(env: TestEnvironment, path: string, body?: unknown): Promise<any> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(
      `${env.url}${path}`,
      {
        method: body === undefined ? 'GET' : 'POST',
        ca: env.ca,
        headers: { authorization: `Bearer ${env.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
