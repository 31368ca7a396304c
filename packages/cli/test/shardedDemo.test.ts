/**
 * The sharded demo as a user runs it: the rxinformer command, its replica processes, SIGKILL, real
 * HTTP — against the simulator and against etcd and kube-apiserver 1.36.3 the demo starts
 * (`--server real`, the ShardedListAndWatch gate on), from the same case.
 */
import { describe, expect, it } from '@jest/globals';
import { serverKinds, startTestServer } from '@rxinformer/testing/servers';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ShardedDemoResult } from '../src/sharded/shardedDemo.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');

function demo(args: string[]): Promise<{ code: number | null; result?: ShardedDemoResult; err: string }> {
  const child = spawn(node, ['--conditions=@rxinformer/source', 'packages/cli/src/main.ts', 'demo-sharded', '--json', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      resolve({ code, err, ...(last.startsWith('{') && { result: JSON.parse(last) as ShardedDemoResult }) });
    }),
  );
}

const fast = ['--lease-duration-ms', '3000', '--renew-deadline-ms', '2000', '--retry-period-ms', '300'];

describe.each(serverKinds())('rxinformer demo-sharded --server %s', (kind) => {
  it('should reconcile every object with no overlap through a SIGKILL and a new replica, and never have two leaders', async () => {
    const { code, result, err } = await demo(['--server', kind, '--replicas', '3', '--objects', '600', '--metrics-port', '0', ...fast]);
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    // Every replica, sharded or leader-elected, served its endpoints and said where.
    for (const identity of ['replica-1', 'replica-2', 'replica-3', 'replica-4', 'leader-1', 'leader-2', 'leader-3'])
      expect(err).toMatch(new RegExp(`${identity} serves http://127\\.0\\.0\\.1:\\d+/metrics, /readyz and /healthz`));
    expect(result).toMatchObject({ server: kind, objects: 600, reconciledAll: true, overlaps: 0, leaderOverlaps: 0, shardSelector: true });
    // The leader whose Lease writes the proxy failed stopped working before another took the Lease.
    expect(result!.renewalFault!.steppedDownFirst).toBe(true);
    // Each replica caches its share only: about 600 / 3, what the server answers its shardSelector
    // with (echoed as metadata.shardInfo), which is what our own filter by the same hash keeps.
    const shards = Object.values(result!.shards);
    expect(shards).toHaveLength(3);
    for (const s of shards) {
      expect(s).toMatchObject({ echoedToInformer: true, subsetEqualsLocal: true, cached: s.localSubset, listedByServer: s.localSubset });
      expect(s.cached).toBeLessThan(600 * 0.5);
    }
    expect(Object.values(result!.cachedPerReplica).reduce((a, b) => a + b)).toBe(600);
    expect(result!.failoverMs).toBeGreaterThan(0);
  }, 300_000);
});

describe('rxinformer demo-sharded', () => {
  it('should run against the server of a kubeconfig file, in a namespace of its own it removes', async () => {
    const server = await startTestServer('sim', { featureGates: { ShardedListAndWatch: true } });
    const dir = mkdtempSync(join(tmpdir(), 'demo-kubeconfig-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, server.kubeConfig().exportConfig(), { mode: 0o600 });
      const { code, result, err } = await demo(['--kubeconfig', kubeconfig, '--replicas', '2', '--objects', '100', '--no-leader', ...fast]);
      expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
      expect(result).toMatchObject({ server: 'kubeconfig', objects: 100, reconciledAll: true, overlaps: 0, shardSelector: true });
      const namespaces = (await server.api.get('/api/v1/namespaces')).items.map((n: any) => n.metadata.name);
      expect(namespaces.filter((n: string) => n.startsWith('demo-sharded-'))).toEqual([]);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('should refuse a bad command line with exit code 2', async () => {
    for (const [args, words] of [
      [['--replicas', '1'], /at least 2/],
      [['--server', 'kind'], /--server needs sim or real/],
      [['--server', 'real', '--kubeconfig', 'x'], /exclude each other/],
    ] as const) {
      const { code, err } = await demo([...args]);
      expect({ code, err }).toEqual({ code: 2, err: expect.stringMatching(words) });
    }
  }, 30_000);
});
