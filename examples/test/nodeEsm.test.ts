/**
 * A Node ESM TypeScript project outside the repository (module node16, strict, skipLibCheck false)
 * installs the packed tarballs and runs the README's first program against `npx
 * rxinformer-apiserver` from the same install, through churn and a dropped watch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { churn, converges, dropWatches, serverPods, viewFromOutput } from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';
import { readmeProgram } from './readme.ts';

describe('a Node ESM TypeScript project installing the tarballs', () => {
  let consumer: Consumer;

  beforeAll(async () => {
    const packed = packedFromManifest().filter((p) => p.name !== '@rxinformer/cli' && p.name !== '@rxinformer/angular');
    consumer = await createConsumer('node-esm', packed);
  }, 300_000);
  afterAll(() => consumer?.dispose());

  it("should hold the README's first program, word for word", () => {
    expect(readFileSync(join(consumer.dir, 'src/main.ts'), 'utf8')).toBe(readmeProgram('examples/node-esm/src/main.ts'));
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
});
