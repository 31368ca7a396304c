/**
 * The replicator example end to end, as it is run: replica processes of `main.ts` against the
 * simulator and a real kube-apiserver, the leader killed with SIGKILL, a source changed while no
 * replica leads, a foreign ConfigMap, and a source deleted while every replica is down.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FINALIZER, REPLICATE_LABEL, SOURCE_LABEL, TEAM_LABEL } from '../replicator.ts';
import { eventually, killAll, startReplica, stopReplica, type Replica } from './replicas.ts';

describe.each(serverKinds())('the replicator example against the %s server', (kind) => {
  let server: TestServer;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    dir = mkdtempSync(join(tmpdir(), 'replicator-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig().exportConfig(), { mode: 0o600 });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    killAll();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name && `/${name}`}`;
  const find = (ns: string, name: string) => server.api.find(cmPath(ns, name));
  const dataOf = async (ns: string, name: string) => JSON.stringify((await find(ns, name))?.data);
  const namespace = (name: string, team?: string) =>
    server.api.create('/api/v1/namespaces', { metadata: { name, ...(team && { labels: { [TEAM_LABEL]: team } }) } });
  const source = (name: string, data: Record<string, string>) =>
    server.api.create(cmPath('config'), { metadata: { name, labels: { [REPLICATE_LABEL]: 'true' } }, data });
  const leaderOf = async (replicas: Replica[]) => {
    await Promise.race(replicas.map((r) => r.waitFor(/^leading$/)));
    const leaders = replicas.filter((r) => r.lines.includes('leading'));
    expect(leaders).toHaveLength(1);
    return leaders[0];
  };

  it('should fail over on SIGKILL, apply a change made in the gap, leave a foreign ConfigMap alone with a Warning, and clean up a source deleted while down', async () => {
    await namespace('config');
    await namespace('team-a', 'a');
    await namespace('team-b', 'b');
    await source('shared', { a: '1' });
    await source('settings', { s: '1' });
    await server.api.create(cmPath('config'), { metadata: { name: 'private' }, data: { p: '1' } });
    const foreign = await server.api.create(cmPath('team-b'), { metadata: { name: 'settings' }, data: { mine: 'yes' } });

    const replicas = [startReplica('replica-1', kubeconfig), startReplica('replica-2', kubeconfig)];
    const leader = await leaderOf(replicas);
    await eventually('the copies', async () => {
      const copies = await Promise.all([dataOf('team-a', 'shared'), dataOf('team-b', 'shared'), dataOf('team-a', 'settings')]);
      return copies.join() === ['{"a":"1"}', '{"a":"1"}', '{"s":"1"}'].join();
    });
    expect((await find('team-a', 'shared')).metadata.labels).toEqual({ [SOURCE_LABEL]: 'config' });
    expect((await find('config', 'shared')).metadata.finalizers).toEqual([FINALIZER]);
    expect(await find('team-a', 'private')).toBeUndefined();
    await eventually('the Warning Event on the foreign ConfigMap', async () => {
      const events = (await server.api.get('/apis/events.k8s.io/v1/namespaces/team-b/events')).items;
      return events.some((e: any) => e.type === 'Warning' && e.reason === 'NotReplicated' && e.regarding.uid === foreign.metadata.uid);
    });
    await leader.waitFor(/^left team-b\/settings alone/);

    // SIGKILL: the Lease is not released; the other replica takes it once it expires (3 s).
    leader.child.kill('SIGKILL');
    await leader.exited;
    const survivor = replicas.find((r) => r !== leader)!;
    await server.api.patch(cmPath('config', 'shared'), { data: { a: '2' } }, 'merge');
    await namespace('team-c', 'c');
    expect(survivor.lines).not.toContain('leading'); // both changes were made while nobody led
    await survivor.waitFor(/^leading$/);
    await eventually('the change and the new namespace applied by the new leader', async () => {
      const copies = await Promise.all([dataOf('team-a', 'shared'), dataOf('team-b', 'shared'), dataOf('team-c', 'shared')]);
      return copies.every((d) => d === '{"a":"2"}') && (await dataOf('team-c', 'settings')) === '{"s":"1"}';
    });

    // Every replica down, a source deleted: its finalizer holds it, with its copies, until a replica runs.
    expect(await stopReplica(survivor)).toBe(0);
    await server.api.delete(cmPath('config', 'settings'));
    expect((await find('config', 'settings')).metadata.deletionTimestamp).toBeDefined();
    expect(await find('team-a', 'settings')).toBeDefined();
    const restarted = startReplica('replica-3', kubeconfig);
    await restarted.waitFor(/^leading$/);
    await eventually('the deleted source and its copies gone', async () => {
      const left = await Promise.all([find('config', 'settings'), find('team-a', 'settings'), find('team-c', 'settings')]);
      return left.every((o) => o === undefined);
    });
    expect(await find('team-b', 'settings')).toMatchObject({
      metadata: { resourceVersion: foreign.metadata.resourceVersion },
      data: { mine: 'yes' },
    });
    expect(await dataOf('team-c', 'shared')).toBe('{"a":"2"}');
    await restarted.waitFor(/^config\/settings deleted: its copies are gone$/);
    expect(await stopReplica(restarted)).toBe(0);
  }, 300_000);

  it('should serve probes and metrics, and on SIGTERM release the Lease so the other replica leads before it could expire', async () => {
    // A minute's Lease: the other replica can only lead in this test if the Lease was released.
    const slow = ['--lease-duration-ms', '60000', '--renew-deadline-ms', '40000'];
    await server.api.create(cmPath('default'), { metadata: { name: 'handover', labels: { [REPLICATE_LABEL]: 'true' } }, data: {} });
    const replicas = [startReplica('replica-4', kubeconfig, slow), startReplica('replica-5', kubeconfig, slow)];
    const leader = await leaderOf(replicas);
    const other = replicas.find((r) => r !== leader)!;
    await leader.waitFor(/^serving /);
    const [metricsUrl, readyzUrl] = leader.lines
      .find((l) => l.startsWith('serving '))!
      .split(' ')
      .slice(1);
    await eventually('the leader ready', async () => (await fetch(readyzUrl)).status === 200);
    expect(await (await fetch(`${readyzUrl}?verbose`)).text()).toMatch(/\[\+\]manager ok/);
    await eventually('its reconciles counted', async () =>
      /controller_runtime_reconcile_total\{controller="replicator",result="success"\} [1-9]/.test(await (await fetch(metricsUrl)).text()),
    );
    expect(await stopReplica(leader)).toBe(0);
    const lease = await server.api.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/configmap-replicator');
    expect([undefined, '', other.id]).toContain(lease.spec.holderIdentity);
    await other.waitFor(/^leading$/);
    expect(leader.lines).toContain('stopping');
    expect(await stopReplica(other)).toBe(0);
  }, 120_000);
});
