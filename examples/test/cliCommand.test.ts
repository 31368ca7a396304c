/**
 * The commands installed from the tarballs: `npx rxinformer` (the live view on its embedded
 * simulator, the soak, the simulator, a hub replica), `npx rxinformer-apiserver`, each with --help;
 * and a tab of `@rxinformer/hub/browser` (Node 22's WebSocket) through the installed hub.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
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
    // A fault every second from the simulator's start: one comes before the end however slowly a busy
    // machine starts it (the default, every 5 s, within 6 s left one second to spare).
    const { stdout } = await consumer.run('npx', ['--no-install', 'rxinformer', '--duration', '3', '--fault-every', '1', '--pods', '30']);
    expect(stdout).toMatch(/^simulator running at http:\/\/127\.0\.0\.1:\d+/m);
    expect(stdout).toMatch(/^synced: \d+ objects listed/m);
    expect(stdout).toMatch(/^fault injected: /m);
    expect(stdout).toMatch(/^summary: ran [\d.]+s, \d+ objects cached$/m);
  }, 60_000);

  it('should serve a tab of @rxinformer/hub/browser through npx rxinformer hub on the simulator, its metrics for Prometheus', async () => {
    const sim = await startSimulator(consumer);
    writeFileSync(join(consumer.dir, 'users.csv'), 'tab-token,alice,u1\n');
    const hub = consumer.start('npx', [
      '--no-install',
      'rxinformer',
      'hub',
      '--kubeconfig',
      sim.kubeconfig,
      '--token-auth-file',
      'users.csv',
      '--authorize-as-hub',
      '--port',
      '0',
      '--metrics-port',
      '0',
      '--name',
      'consumer',
    ]);
    const { hub: url, metrics } = JSON.parse((await hub.waitFor(/^(\{"hub".*)$/m))[1]) as { hub: string; metrics: string };
    const tab = await consumer.run('node', ['--input-type=module', '-e', TAB], { env: { ...consumer.env, HUB: `${url}/hub` } });
    expect(tab.stdout).toMatch(/^namespaces through the hub: [1-9]\d*$/m);
    expect(await (await fetch(`${metrics}/metrics`)).text()).toMatch(/^rxinformer_hub_informers\{hub="consumer"\} 1$/m);
    await hub.stop();
    await sim.running.stop();
  }, 90_000);
});

/** A tab's program: core's informer of namespaces over the hub, with Node 22's global WebSocket. */
const TAB = `
import { createInformerFactory } from '@rxinformer/core';
import { hubListerWatcherSource } from '@rxinformer/hub/browser';
const source = hubListerWatcherSource(process.env.HUB, { token: () => 'tab-token' });
const factory = createInformerFactory(source);
const namespaces = factory.informerFor({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false });
factory.start();
namespaces.synced$.subscribe((synced) => {
  if (!synced) return;
  console.log('namespaces through the hub: ' + namespaces.getStore().list().length);
  factory.shutdown();
  source.close();
});
`;
