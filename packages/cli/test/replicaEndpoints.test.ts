/**
 * A sharded demo replica's `--metrics-port`: a real replica process, scraped over real HTTP, against
 * the simulator and kube-apiserver 1.36.3 (its `--kubeconfig` through the fault proxy).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { until } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShardedArgs, ShardedArgsError } from '../src/sharded/shardedMain.ts';
import { spawnReplica, stopReplicas, type ReplicaProcess } from '../src/sharded/replicaProcesses.ts';

const OBJECTS = 20;

/** Calls `get` every 100 ms until `ok` holds of its answer; throws naming `what` after 30 s. */
async function eventually<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within 30 s; last: ${String(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The value of the series `name{labels}` in a Prometheus text exposition, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(serverKinds())('a demo replica with --metrics-port against the %s server', (kind) => {
  let server: TestServer | undefined;
  let replica: ReplicaProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (replica) await stopReplicas([replica]);
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    replica = server = dir = undefined;
  });

  it(
    'should serve its informer and work queue metrics, and be ready once its share is cached',
    async () => {
      server = await startTestServer(kind, { featureGates: { ShardedListAndWatch: true } });
      const namespace = await server.namespace('endpoints');
      for (let i = 0; i < OBJECTS; i++)
        await server.api.create(`/api/v1/namespaces/${namespace}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, labels: { demo: 'sharded' } },
        });
      dir = mkdtempSync(join(tmpdir(), 'replica-endpoints-'));
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, server.kubeConfig().exportConfig(), { mode: 0o600 });
      const announced: string[] = [];
      replica = spawnReplica('replica-1', {
        url: '',
        kubeconfig,
        namespace,
        mode: 'sharded',
        slots: 16,
        concurrency: 2,
        heartbeatMs: 50,
        statusMs: 100,
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 300,
        metricsPort: 0,
        stderr: 'ignore',
        onEndpoints: (identity, url) => announced.push(`${identity} ${url}`),
      });
      const r = replica;
      await until(() => r.endpoints !== undefined, { what: 'the replica serving its endpoints', timeoutMs: 30_000, intervalMs: 50 });
      expect(announced).toEqual([`replica-1 ${r.endpoints}`]);
      await eventually(
        'readiness',
        () => fetch(`${r.endpoints}/readyz`).then((res) => res.status),
        (status) => status === 200,
      );
      // Its one replica holds every slot, so its informer caches every ConfigMap, and reconciles each.
      const text = await eventually(
        'every object reconciled',
        () => fetch(`${r.endpoints}/metrics`).then((res) => res.text()),
        (t) => (sample(t, 'workqueue_adds_total{name="demo/replica-1"}') ?? 0) >= OBJECTS,
      );
      expect(sample(text, 'rxinformer_informer_objects{informer="configmaps"}')).toBe(OBJECTS);
      expect(sample(text, 'rxinformer_informer_synced{informer="configmaps"}')).toBe(1);
      expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect((await fetch(`${r.endpoints}/healthz`)).status).toBe(200);
    },
    START_TIMEOUT_MS,
  );
});

describe('the demo command line', () => {
  it('should take --metrics-port on the demo command line, and refuse what is not a port', () => {
    expect(parseShardedArgs(['--metrics-port', '0']).options.metricsPort).toBe(0);
    expect(parseShardedArgs(['--metrics-port', '9100']).options.metricsPort).toBe(9100);
    for (const bad of ['-1', '65536', 'x', '1.5']) expect(() => parseShardedArgs(['--metrics-port', bad])).toThrow(ShardedArgsError);
  });
});
