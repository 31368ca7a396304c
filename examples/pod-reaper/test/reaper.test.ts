/**
 * The pod reaper example end to end, as it is run: its process against the simulator and a real
 * kube-apiserver, leading, reaping the Failed pods a counter ConfigMap owns (and no other pod),
 * counting them, reconciling the counter again after its delete without a read-your-writes
 * timeout, and releasing its Lease on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, killAll, startExample, stopReplica } from '../../replicator/test/replicas.ts';
import { COUNTER_LABEL } from '../reaper.ts';

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

describe.each(serverKinds())('the pod reaper example against the %s server', (kind) => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    dir = mkdtempSync(join(tmpdir(), 'pod-reaper-'));
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    killAll();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should reap the Failed pods of a counter, count them, reconcile it again without a read-your-writes timeout, and release its Lease', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig().exportConfig(), { mode: 0o600 });
    const ns = await server.namespace('reaper');
    const podsPath = `/api/v1/namespaces/${ns}/pods`;
    const counter = await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'jobs', labels: { [COUNTER_LABEL]: '' } },
    });
    const ownedBy = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'jobs', uid: counter.metadata.uid, controller: true }];
    const pod = async (name: string, phase: string, owned = true) => {
      const spec = { containers: [{ name: 'c', image: 'example.com/job:1' }] };
      await server.api.create(podsPath, { metadata: { name, ...(owned && { ownerReferences: ownedBy }) }, spec });
      await server.api.patch(`${podsPath}/${name}/status`, { status: { phase } }, 'merge');
    };
    const reaped = async () => (await server.api.find(`/api/v1/namespaces/${ns}/configmaps/jobs`))?.data?.reaped;
    await Promise.all([pod('failed-1', 'Failed'), pod('failed-2', 'Failed'), pod('running', 'Running'), pod('stranger', 'Failed', false)]);

    const reaper = startExample(main, 'reaper-1', kubeconfig, []); // client-go's Lease timing: a loaded machine keeps its term
    // A loaded machine is slow: generous waits, and the reaper's lines when one runs out.
    const counted = (n: string) =>
      eventually(`${n} counted`, async () => (await reaped()) === n, 180_000).catch((e: Error) => {
        throw new Error(`${e.message}; the reaper printed:\n${reaper.lines.join('\n')}`, { cause: e });
      });
    await reaper.waitFor(/^leading$/, 120_000);
    await counted('2');
    await pod('failed-3', 'Failed'); // fails while the reaper runs: the watch brings it
    await counted('3');
    await reaper.waitFor(/^ns-reaper-\S+\/jobs reconciled \d+ ms after its delete$|^\S+\/jobs reconciled \d+ ms after its delete$/);

    for (const name of ['failed-1', 'failed-2', 'failed-3']) expect(await server.api.find(`${podsPath}/${name}`)).toBeUndefined();
    expect(await server.api.find(`${podsPath}/running`)).toBeDefined(); // not Failed
    expect(await server.api.find(`${podsPath}/stranger`)).toBeDefined(); // no counter owns it
    expect(reaper.lines.filter((l) => l.startsWith('reaped ')).sort()).toEqual(
      ['failed-1', 'failed-2', 'failed-3'].map((n) => `reaped ${ns}/${n}`),
    );
    expect(reaper.lines.filter((l) => l.startsWith('error:'))).toEqual([]); // a read-your-writes timeout would be one
    console.log(`${kind}: ${reaper.lines.filter((l) => / ms after its delete$/.test(l)).join('; ')}`);

    expect(await stopReplica(reaper)).toBe(0);
    const lease = await server.api.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/pod-reaper');
    expect(lease.spec.holderIdentity).toBe(''); // released: another replica need not wait for it to expire
  }, 480_000);
});
