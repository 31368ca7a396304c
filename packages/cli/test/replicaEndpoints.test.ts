/** A sharded demo replica's `--metrics-port`: a real replica process, scraped over real HTTP. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { until } from '@rxinformer/testing';
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

describe('a demo replica with --metrics-port', () => {
  let sim: ApiServer | undefined;
  let replica: ReplicaProcess | undefined;
  afterEach(async () => {
    if (replica) await stopReplicas([replica]);
    await sim?.close();
    replica = sim = undefined;
  });

  it('should serve its informer and work queue metrics, and be ready once its share is cached', async () => {
    sim = await startApiServer({ port: 0, shardedListAndWatch: true });
    for (let i = 0; i < OBJECTS; i++)
      sim.storage.create('configmaps', { metadata: { name: `cm-${i}`, labels: { demo: 'sharded' } } }, 'default');
    const announced: string[] = [];
    replica = spawnReplica('replica-1', {
      url: sim.url,
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
  }, 60_000);

  it('should take --metrics-port on the demo command line, and refuse what is not a port', () => {
    expect(parseShardedArgs(['--metrics-port', '0']).options.metricsPort).toBe(0);
    expect(parseShardedArgs(['--metrics-port', '9100']).options.metricsPort).toBe(9100);
    for (const bad of ['-1', '65536', 'x', '1.5']) expect(() => parseShardedArgs(['--metrics-port', bad])).toThrow(ShardedArgsError);
  });
});
