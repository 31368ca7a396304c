/**
 * CRDs from a folder, served before the environment resolves, and one suite run unchanged on the
 * environment's own processes and on an existing cluster: here a second environment this file
 * starts, which the existing-cluster environment must leave running, with only the CRDs it
 * created removed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callServer } from '../src/https.ts';
import {
  ClusterUnreachableError,
  CRDInstallError,
  CRDNotServedError,
  ExistingClusterError,
  installCRDs,
  InvalidOptionsError,
  startTestEnvironment,
  uninstallCRDs,
  type CustomResourceDefinition,
  type TestEnvironment,
} from '../src/index.ts';

const START = 120_000;
const fixtures = fileURLToPath(new URL('fixtures/crds', import.meta.url));

/** A namespaced CRD `<plural>.later.example.com` of kind `kind` (list kind `<plural>List`), served in v1. */
const laterCrd = (plural: string, kind: string): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.later.example.com` },
  spec: {
    group: 'later.example.com',
    scope: 'Namespaced',
    names: { plural, kind, listKind: `${plural}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});

/** `GET path` of `env` as its admin: status and JSON body (of a 2xx). */
async function get(env: TestEnvironment, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await callServer(env, 'GET', path);
  return { status: answer.status, body: answer.status < 300 ? (JSON.parse(answer.body) as Record<string, unknown>) : {} };
}

/** `POST path` of `body` to `env`: the status. */
const post = async (env: TestEnvironment, path: string, body: unknown) => (await callServer(env, 'POST', path, body)).status;

let cluster: TestEnvironment; // "the existing cluster"
let own: TestEnvironment;
beforeAll(async () => {
  [cluster, own] = await Promise.all([startTestEnvironment(), startTestEnvironment({ crds: { paths: [fixtures] } })]);
  // A CRD of the folder the cluster has already, with a custom resource: the environment replaces it, never deletes it.
  await installCRDs(cluster.kubeConfig(), { paths: [join(fixtures, 'sprockets.json')] });
  expect(
    await post(cluster, '/apis/parts.example.com/v1/namespaces/default/sprockets', {
      apiVersion: 'parts.example.com/v1',
      kind: 'Sprocket',
      metadata: { name: 'kept' },
    }),
  ).toBe(201);
}, START);
afterAll(async () => {
  await cluster?.stop();
  await own?.stop();
});

describe.each([
  ['processes of its own', () => own],
  [
    'an existing cluster',
    () => startTestEnvironment({ existingCluster: { kubeconfig: cluster.kubeconfigPath }, crds: { paths: [fixtures] } }),
  ],
])('a controller suite on %s', (_, start) => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await start();
  }, START);
  afterAll(() => env?.stop());

  it('should serve the CRDs of the folder when the environment resolves, in every served version', async () => {
    for (const [path, plural] of [
      ['/apis/envtest.example.com/v1', 'widgets'],
      ['/apis/envtest.example.com/v1beta1', 'widgets'],
      ['/apis/envtest.example.com/v1', 'gadgets'],
      ['/apis/parts.example.com/v1', 'sprockets'],
    ]) {
      const discovery = await get(env, path);
      expect((discovery.body.resources as { name: string }[]).map((r) => r.name)).toContain(plural);
    }
    expect((await get(env, '/apis/nested.example.com/v1')).status).toBe(404); // the subfolder is not read
    const widget = { apiVersion: 'envtest.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } };
    expect(await post(env, '/apis/envtest.example.com/v1/namespaces/default/widgets', widget)).toBe(201);
    expect((await get(env, '/apis/envtest.example.com/v1beta1/namespaces/default/widgets/w')).body.spec).toEqual({ size: 3 });
    expect(
      await post(env, '/apis/envtest.example.com/v1/gadgets', {
        apiVersion: 'envtest.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
      }),
    ).toBe(201);
  });

  it('should install a CRD later and resolve once it is served', async () => {
    const installed = await env.installCRDs({ objects: [laterCrd('things', 'Thing')] });
    expect(installed).toEqual([{ name: 'things.later.example.com', created: true }]);
    const discovery = await get(env, '/apis/later.example.com/v1');
    expect((discovery.body.resources as { name: string }[]).map((r) => r.name)).toContain('things');
    expect(
      await post(env, '/apis/later.example.com/v1/namespaces/default/things', {
        apiVersion: 'later.example.com/v1',
        kind: 'Thing',
        metadata: { name: 't' },
      }),
    ).toBe(201);
    // Installing it again replaces it.
    expect(await env.installCRDs({ objects: [laterCrd('things', 'Thing')] })).toEqual([
      { name: 'things.later.example.com', created: false },
    ]);
  });

  it("should reject a CRD the server refuses, naming it, with the server's reason", async () => {
    const bad = { ...laterCrd('bads', 'Bad'), metadata: { name: 'wrong.later.example.com' } };
    const error = (await env.installCRDs({ objects: [bad] }).catch((e: unknown) => e)) as CRDInstallError;
    expect(error).toBeInstanceOf(CRDInstallError);
    expect([error.reason, error.crd, error.code]).toEqual(['CRDRejected', 'wrong.later.example.com', 422]);
    expect(error.message).toMatch(
      /^CustomResourceDefinition wrong\.later\.example\.com: POST answered 422: .*must be spec\.names\.plural\+"\."\+spec\.group/,
    );
  });
});

describe('an environment on an existing cluster, stopped', () => {
  it('should have left the cluster running, removed the CRDs it created and kept the one it found', async () => {
    expect((await callServer(cluster, 'GET', '/readyz')).status).toBe(200);
    for (const name of ['widgets.envtest.example.com', 'gadgets.envtest.example.com', 'things.later.example.com'])
      expect((await get(cluster, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status).toBe(404);
    expect((await get(cluster, '/apis/parts.example.com/v1/namespaces/default/sprockets/kept')).status).toBe(200);
  });
});

describe('installCRDs on a cluster', () => {
  it('should name the CRD that is not served in time, and why', async () => {
    // A second kind Thing in the group: kube-apiserver refuses the names, and never establishes it.
    const kc = cluster.kubeConfig();
    await installCRDs(kc, { objects: [laterCrd('things', 'Thing')] });
    const error = (await installCRDs(kc, { objects: [laterCrd('others', 'Thing')], timeoutMs: 3000 }).catch(
      (e: unknown) => e,
    )) as CRDNotServedError;
    expect(error).toBeInstanceOf(CRDNotServedError);
    expect([error.reason, error.crd]).toEqual(['CRDNotServed', 'others.later.example.com']);
    expect(error.message).toMatch(
      /^CustomResourceDefinition others\.later\.example\.com was not served after 3000 ms: not Established: NamesAccepted is False \(KindConflict: /,
    );
    await uninstallCRDs(kc, ['others.later.example.com', 'things.later.example.com', 'absent.later.example.com']);
    expect((await get(cluster, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.later.example.com')).status).toBe(404);
  }, 30_000);
});

describe('choosing an existing cluster', () => {
  const saved = { use: process.env.USE_EXISTING_CLUSTER, kubeconfig: process.env.KUBECONFIG };
  afterAll(() => {
    for (const [key, value] of [
      ['USE_EXISTING_CLUSTER', saved.use],
      ['KUBECONFIG', saved.kubeconfig],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('should take USE_EXISTING_CLUSTER and KUBECONFIG as controller-runtime does, and never stop the cluster', async () => {
    process.env.USE_EXISTING_CLUSTER = 'true';
    process.env.KUBECONFIG = cluster.kubeconfigPath;
    const env = await startTestEnvironment({ featureGates: { WatchList: false } }); // the suite's own options: ignored there
    expect([env.existingCluster, env.url, env.token, env.ca]).toEqual([true, cluster.url, cluster.token, cluster.ca]);
    expect(env.kubeConfig().getCurrentCluster()?.server).toBe(cluster.url);
    for (const member of [() => env.etcd, () => env.logs, () => env.featureGates, () => env.servingCertificate()])
      expect(member).toThrow(ExistingClusterError);
    await expect(env.restartApiServer()).rejects.toThrow(/restartApiServer is not available: the environment runs on an existing cluster/);
    await expect(env.compact()).rejects.toBeInstanceOf(ExistingClusterError);
    await env.stop();
    await env.stop();
    expect((await callServer(cluster, 'GET', '/readyz')).status).toBe(200);
    // `existingCluster: false` starts processes whatever the environment says (not started here: refused options prove the choice).
    await expect(startTestEnvironment({ existingCluster: false, port: 0 })).rejects.toThrow(/port must be an integer/);
  });

  it('should refuse what cannot be an existing cluster with typed errors', async () => {
    process.env.USE_EXISTING_CLUSTER = 'yes';
    await expect(startTestEnvironment()).rejects.toThrow(/USE_EXISTING_CLUSTER must be true or false, not "yes"/);
    process.env.USE_EXISTING_CLUSTER = 'true';
    process.env.KUBECONFIG = [cluster.kubeconfigPath, cluster.kubeconfigPath].join(delimiter);
    await expect(startTestEnvironment()).rejects.toThrow(/KUBECONFIG lists 2 files: name one with existingCluster\.kubeconfig/);
    delete process.env.USE_EXISTING_CLUSTER;
    const kubeconfig = cluster.kubeconfigPath;
    await expect(startTestEnvironment({ existingCluster: { kubeconfig }, featureGates: {}, port: 6443 })).rejects.toThrow(
      new InvalidOptionsError("featureGates, port start processes of the environment's own: not with existingCluster"),
    );
    await expect(startTestEnvironment({ existingCluster: { kubeconfig: '/nonexistent/kubeconfig' } })).rejects.toThrow(
      /the kubeconfig \/nonexistent\/kubeconfig does not exist/,
    );
    // A cluster that does not answer: a kubeconfig whose server is a port nobody listens on.
    const dir = mkdtempSync(join(tmpdir(), 'rxinformer-closed-'));
    const closed = join(dir, 'kubeconfig');
    writeFileSync(closed, cluster.kubeconfigYaml.replace(new URL(cluster.url).port, '1'));
    try {
      const error = (await startTestEnvironment({ existingCluster: { kubeconfig: closed }, startTimeoutMs: 1000 }).catch(
        (e: unknown) => e,
      )) as ClusterUnreachableError;
      expect(error).toBeInstanceOf(ClusterUnreachableError);
      expect(error.message).toMatch(/^the existing cluster at https:\/\/127\.0\.0\.1:1 was not ready after 1000 ms: .*ECONNREFUSED/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
