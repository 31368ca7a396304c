/** The sharded demo as a user runs it: the rxinformer command, its replica processes, SIGKILL, real HTTP. */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
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

describe('rxinformer demo-sharded', () => {
  it('should reconcile every object with no overlap through a SIGKILL and a new replica, and never have two leaders', async () => {
    const { code, result, err } = await demo(['--replicas', '3', '--objects', '600', '--metrics-port', '0', ...fast]);
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    // Every replica, sharded or leader-elected, served its endpoints and said where.
    for (const identity of ['replica-1', 'replica-2', 'replica-3', 'replica-4', 'leader-1', 'leader-2', 'leader-3'])
      expect(err).toMatch(new RegExp(`${identity} serves http://127\\.0\\.0\\.1:\\d+/metrics, /readyz and /healthz`));
    expect(result).toMatchObject({ objects: 600, reconciledAll: true, overlaps: 0, leaderOverlaps: 0, shardSelector: true });
    expect(result!.renewalFault!.steppedDownFirst).toBe(true);
    // Each replica caches its share only: about 600 / 3.
    for (const cached of Object.values(result!.cachedPerReplica)) expect(cached).toBeLessThan(600 * 0.5);
    expect(Object.values(result!.cachedPerReplica).reduce((a, b) => a + b)).toBe(600);
    expect(result!.failoverMs).toBeGreaterThan(0);
  }, 180_000);

  it('should refuse a bad command line with exit code 2', async () => {
    const { code, err } = await demo(['--replicas', '1']);
    expect(code).toBe(2);
    expect(err).toMatch(/at least 2/);
  }, 30_000);
});
