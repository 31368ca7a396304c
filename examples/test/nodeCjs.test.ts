/**
 * A CommonJS TypeScript project (no "type": "module"; module nodenext) installs the tarballs: its
 * imports type-check and compile to require() calls, which Node 22 answers with our ES modules.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { churn, converges, dropWatches, serverPods, viewFromOutput } from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';

describe('a CommonJS TypeScript project installing the tarballs', () => {
  let consumer: Consumer;

  beforeAll(async () => {
    // The browser frameworks' bindings need their framework: the Angular and React tests install them.
    const packed = packedFromManifest().filter((p) => !['@rxinformer/cli', '@rxinformer/angular', '@rxinformer/react'].includes(p.name));
    consumer = await createConsumer('node-cjs', packed);
  }, 300_000);
  afterAll(() => consumer?.dispose());

  it('should type-check with the types of the require condition and compile to require() calls', async () => {
    await consumer.run('npx', ['--no-install', 'tsc']);
    const js = readFileSync(join(consumer.dir, 'dist/main.js'), 'utf8');
    expect(js).toContain('require("@rxinformer/client-node")');
    expect(js).toContain('require("@rxinformer/core")');
  }, 120_000);

  it("should require every package's root and see its exports", async () => {
    const script = `for (const p of ['@rxinformer/core', '@rxinformer/client-node', '@rxinformer/apiserver-sim']) {
      const m = require(p);
      console.log(p, Object.keys(m).length, typeof (m.createSharedInformer ?? m.createKubeInformerFactory ?? m.startApiServer));
    }`;
    const { stdout, stderr } = await consumer.run('node', ['-e', script]);
    expect(stdout).toMatch(/^@rxinformer\/core \d+ function$/m);
    expect(stdout).toMatch(/^@rxinformer\/client-node \d+ function$/m);
    expect(stdout).toMatch(/^@rxinformer\/apiserver-sim \d+ function$/m);
    expect(stderr).not.toMatch(/ExperimentalWarning/);
  });

  it('should run the compiled script against npx rxinformer-apiserver and converge through churn and a dropped watch', async () => {
    const sim = await startSimulator(consumer);
    await churn(sim.url, 0);
    const program = consumer.start('node', ['dist/main.js'], { env: { ...consumer.env, KUBECONFIG: sim.kubeconfig } });
    await program.waitFor(/^synced: 12 pods cached$/m);
    await churn(sim.url, 1);
    expect(await dropWatches(sim.url)).toMatchObject({ ok: true, hit: 1 });
    await churn(sim.url, 2);
    const pods = await converges(
      () => viewFromOutput(program.output()),
      () => serverPods(sim.url),
    );
    expect(pods).toHaveLength(12 + 2 * 6);
    expect(await program.stop()).toBe(0);
  }, 120_000);
});
