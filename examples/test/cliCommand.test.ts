/**
 * The commands installed from the tarballs: `npx rxinformer` (the live view on its embedded
 * simulator, the soak, the simulator), `npx rxinformer-apiserver`, each with --help.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConsumer, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';

describe('the commands of the installed tarballs', () => {
  let consumer: Consumer;

  beforeAll(async () => {
    consumer = await createConsumer('cli', packedFromManifest());
  }, 300_000);
  afterAll(() => consumer?.dispose());

  it('should print --help and --version of rxinformer, rxinformer soak and rxinformer-apiserver', async () => {
    const npx = (...args: string[]) => consumer.run('npx', ['--no-install', ...args]);
    expect((await npx('rxinformer', '--help')).stdout).toMatch(
      /^rxinformer — [\s\S]*rxinformer soak \[options\][\s\S]*usage: rxinformer \[options\]/,
    );
    expect((await npx('rxinformer', '--version')).stdout).toBe('0.1.0\n');
    expect((await npx('rxinformer', 'soak', '--help')).stdout).toMatch(/^usage: rxinformer soak \[options\]/);
    expect((await npx('rxinformer', 'apiserver', '--help')).stdout).toMatch(/^usage: rxinformer-apiserver /);
    expect((await npx('rxinformer-apiserver', '--help')).stdout).toMatch(/^usage: rxinformer-apiserver /);
  }, 60_000);

  it('should run the live view on its embedded simulator through a fault and exit 0 with a summary', async () => {
    const { stdout } = await consumer.run('npx', ['--no-install', 'rxinformer', '--duration', '6', '--pods', '30']);
    expect(stdout).toMatch(/^simulator running at http:\/\/127\.0\.0\.1:\d+/m);
    expect(stdout).toMatch(/^synced: \d+ objects listed/m);
    expect(stdout).toMatch(/^fault injected: /m);
    expect(stdout).toMatch(/^summary: ran [\d.]+s, \d+ objects cached$/m);
  }, 60_000);
});
