/**
 * A Node ESM TypeScript project outside the repository (module node16, strict, skipLibCheck false)
 * installs the packed tarballs and runs the README's first program against `npx
 * rxinformer-apiserver` from the same install, through churn and a dropped watch; and envtest's and
 * the controller package's first programs against `npx rxinformer-envtest start`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { createApi } from '@rxinformer/testing/servers';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { churn, converges, dropWatches, serverPods, viewFromOutput } from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest, ROOT } from './pack.ts';
import { readmeProgram } from './readme.ts';

describe('a Node ESM TypeScript project installing the tarballs', () => {
  let consumer: Consumer;

  beforeAll(async () => {
    // The browser frameworks' bindings need their framework: the Angular and React tests install them.
    const packed = packedFromManifest().filter((p) => !['@rxinformer/cli', '@rxinformer/angular', '@rxinformer/react'].includes(p.name));
    // The binaries envtest runs: built from Go modules, once per machine (nothing when current).
    execFileSync(process.execPath, [join(ROOT, 'packages/envtest/src/main.ts'), 'build'], { stdio: 'ignore' });
    consumer = await createConsumer('node-esm', packed);
  }, 300_000);
  afterAll(() => consumer?.dispose());

  it("should hold the README's first program, envtest's and the controller package's, word for word", () => {
    expect(readFileSync(join(consumer.dir, 'src/main.ts'), 'utf8')).toBe(readmeProgram('examples/node-esm/src/main.ts'));
    expect(readFileSync(join(consumer.dir, 'src/envtest.ts'), 'utf8')).toBe(
      readmeProgram('examples/node-esm/src/envtest.ts', 'packages/envtest/README.md'),
    );
    expect(readFileSync(join(consumer.dir, 'src/controller.ts'), 'utf8')).toBe(
      readmeProgram('examples/node-esm/src/controller.ts', 'packages/controller/README.md'),
    );
  });

  it('should type-check it with module node16, strict and skipLibCheck false', async () => {
    await consumer.run('npx', ['--no-install', 'tsc']);
    expect(readFileSync(join(consumer.dir, 'dist/main.js'), 'utf8')).toContain("from '@rxinformer/client-node'");
  }, 120_000);

  it('should run it against npx rxinformer-apiserver and converge through churn and a dropped watch', async () => {
    const sim = await startSimulator(consumer);
    await churn(sim.url, 0);
    const program = consumer.start('node', ['dist/main.js'], { env: { ...consumer.env, KUBECONFIG: sim.kubeconfig } });
    await program.waitFor(/^synced: 12 pods cached$/m);
    await converges(
      () => viewFromOutput(program.output()),
      () => serverPods(sim.url),
    );
    for (let round = 1; round <= 3; round++) {
      await churn(sim.url, round);
      if (round === 2) expect(await dropWatches(sim.url)).toMatchObject({ ok: true, hit: 1 });
    }
    const pods = await converges(
      () => viewFromOutput(program.output()),
      () => serverPods(sim.url),
    );
    expect(pods).toHaveLength(12 + 3 * 6);
    expect(program.output()).toMatch(/^updated pod-3-0 Pending$/m);
    expect(await program.stop()).toBe(0);
  }, 120_000);

  it("should run it against a real kube-apiserver that npx rxinformer-envtest starts, and run envtest's own first program", async () => {
    const kubeconfig = join(consumer.dir, 'envtest.kubeconfig');
    const envtest = consumer.start('npx', ['--no-install', 'rxinformer-envtest', 'start', '--kubeconfig', kubeconfig]);
    const logs = (await envtest.waitFor(/^logs: (\S+)\/apiserver\/kube-apiserver\.log/m))[1];
    const api = realApi(kubeconfig);
    const program = consumer.start('node', ['dist/main.js'], { env: { ...consumer.env, KUBECONFIG: kubeconfig } });
    await program.waitFor(/^synced: 0 pods cached$/m);
    for (const name of ['pod-a', 'pod-b', 'pod-c']) await api.create('/api/v1/namespaces/default/pods', testPod(name));
    await api.delete('/api/v1/namespaces/default/pods/pod-b');
    await program.waitFor(/^deleted pod-b/m);
    expect(viewFromOutput(program.output())).toEqual(['pod-a', 'pod-c']);
    expect(await program.stop()).toBe(0);
    // The controller package's first program: a ConfigMap created, then updated with a draft.
    const ctl = await consumer.run('node', ['dist/controller.js']);
    expect(ctl.stdout).toMatch(/^\d+ \{ mode: 'fast' \}$/m); // among the manager's lines
    expect((await api.get<{ metadata: { labels: object } }>('/api/v1/namespaces/default/configmaps/settings')).metadata.labels).toEqual({
      'example.com/tier': 'gold',
    });
    await api.close();
    await envtest.stop();
    expect(existsSync(logs)).toBe(false); // both processes stopped, their folder removed

    const own = await consumer.run('node', ['dist/envtest.js']);
    expect(own.stdout.trim()).toBe("[ 'hello' ]");
  }, 240_000);
});

/** The test's own client of the server a kubeconfig written by `rxinformer-envtest start` names. */
function realApi(kubeconfig: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  return createApi({ url: cluster.server, ca: Buffer.from(cluster.caData!, 'base64').toString(), token: kc.getCurrentUser()!.token });
}

/** A pod as a test writes it. */
function testPod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  };
}
