import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { clientGoPeerArgs, serverKinds, START_TIMEOUT_MS } from '@rxinformer/testing/servers';
import { runRealBench, type RealServerFigures } from '../bench/realBench.ts';
import { REAL_MARKERS, renderRealRun, renderServerFigures } from '../bench/realReport.ts';
import { buildMetric, renderTable, tableColumns, type Metric } from '../bench/report.ts';
import { processRss } from '../bench/serverRss.ts';
import { syncMetrics, watchMetrics } from '../bench/syncWatchMetrics.ts';
import { median } from '../bench/rounds.ts';

// The pure parts of `npm run bench -- --server real` and the memory reading, and the whole run at a
// tiny size (every contender measured, client-go's included); the benchmark itself measures (no
// timings asserted here).

const ok = (...samples: number[]) => ({ median: median(samples), samples });

describe('processRss', () => {
  it("should read this process's resident memory and its peak from /proc, by its command line", () => {
    const mine = readFileSync('/proc/self/cmdline', 'utf8'); // a jest worker's (its siblings' are the same)
    const self = processRss((argv) => argv.join('\0') === mine.replace(/\0$/, ''));
    expect(self).toBeDefined();
    expect(self!.rssKiB).toBeGreaterThan(10_000);
    expect(self!.peakKiB).toBeGreaterThanOrEqual(self!.rssKiB);
    expect(processRss((argv) => argv[0] === '/no/such/binary')).toBeUndefined();
  });
});

const rss = (apiServerKiB: number, etcdKiB: number) => ({
  apiServer: { pid: 1, rssKiB: apiServerKiB, peakKiB: apiServerKiB + 1024 },
  etcd: { pid: 2, rssKiB: etcdKiB, peakKiB: etcdKiB },
});

describe('renderServerFigures', () => {
  it('should show the start times, the writes and the memory in MiB', () => {
    const figures: RealServerFigures = {
      version: 'v1.36.3',
      startMs: { first: 9650.4, again: [6100, 6049] },
      restartMs: 4548,
      seeding: { pods: 10_000, writes: 20_000, ms: 70_000, writesPerSecond: 286 },
      updates: { count: 20_000, ms: 100_000, perSecond: 200 },
      rss: { started: rss(265_216, 44_032), seeded: rss(512_000, 90_000), end: { apiServer: rss(600_000, 1).apiServer } },
    };
    const table = renderServerFigures(figures);
    expect(table.split('\n').slice(0, 2)).toEqual(['| real server | |', '| --- | --- |']);
    expect(table).toContain('| start (etcd + kube-apiserver ready), first in this process | 9,650 ms |');
    expect(table).toContain('| start again (twice) | 6,100 ms, 6,049 ms |');
    expect(table).toContain('| 10,000 pods created through the API (create + status, 16 in flight) | 70,000 ms, 286 writes/s |');
    expect(table).toContain('| resident memory just started (no pods) | kube-apiserver 259 MiB, etcd 43 MiB |');
    expect(table).toContain('kube-apiserver 586 MiB (peak 587 MiB), etcd ? (peak ?)'); // etcd not found: unknown, not 0
  });
});

describe('syncMetrics and watchMetrics', () => {
  it('should name the metrics by the pod count and pair the peers as npm run bench does', () => {
    const sync = syncMetrics(10_000, { rxinformer: ok(500), rxinformerMetadata: ok(400), clientNode: ok(1000), limit: ok(450) });
    expect(Object.keys(sync)).toEqual(['initialSync10k', 'initialSyncMetadata']);
    expect(sync.initialSyncMetadata).toMatchObject({ rxinformer: 400, clientNode: 1000, limit: 500 });
    expect(sync.initialSync10k.goal?.['rxinformer/clientNode']).toMatchObject({ ratio: 0.5, met: true });
    const watch = watchMetrics(1000, {
      rxinformer: ok(100),
      rxinformerNoFreeze: ok(90),
      rxinformerMetrics: ok(99),
      clientNode: ok(110),
      limit: ok(200),
      bareCache: ok(120),
    });
    expect(Object.keys(watch)).toEqual(['watchThroughput1k', 'watchThroughput1kNoFreeze', 'watchThroughputWithMetrics']);
    expect(watch.watchThroughput1kNoFreeze).toMatchObject({ rxinformer: 90, clientNode: 110, limit: 200 });
    expect(watch.watchThroughput1k.references?.bareCache.value).toBe(120);
    expect(watch.watchThroughputWithMetrics).toMatchObject({ rxinformer: 99, limit: 100 });
  });
});

describe('client-go in the report', () => {
  const sync = (clientGo: boolean) =>
    buildMetric('initialSync10k', 'ms', 'lower', {
      rxinformer: ok(900),
      clientNode: ok(2000),
      limit: ok(800),
      ...(clientGo && { clientGo: ok(1000, 1200), clientGoProtobuf: { error: 'Error: no protobuf' } }),
    });

  it('should check the goals against client-go (JSON) only where client-go ran', () => {
    const withGo = sync(true);
    expect(withGo).toMatchObject({ clientGo: 1200, clientGoProtobuf: { error: 'Error: no protobuf' } });
    expect(withGo.goal?.['rxinformer/clientGo']).toMatchObject({ atMost: 1, ratio: 0.75, met: true });
    expect(withGo.samples?.clientGo).toEqual([1000, 1200]);
    const heap = buildMetric('heapPerObject', 'bytes/pod', 'lower', { rxinformer: ok(6000), clientGo: ok(10_000) });
    expect(heap.goal?.['rxinformer/clientGo']).toMatchObject({ atMost: 0.5, ratio: 0.6, met: false });
    const watch = buildMetric('watchThroughput10k', 'events/s', 'higher', { rxinformer: ok(990), clientGo: ok(1000) });
    expect(watch.goal?.['rxinformer/clientGo']).toMatchObject({ atLeast: 1, met: false });
    // The simulator's run: no client-go, no column, no goal against it (fails if its goals were always set).
    const without = sync(false);
    expect('clientGo' in without).toBe(false);
    expect(Object.keys(without.goal ?? {})).toEqual(['rxinformer/clientNode', 'rxinformer/limit']);
    expect(tableColumns({ without })).toEqual(['rxinformer', 'clientNode', 'limit']);
  });

  it("should give client-go's columns after rxinformer's, with a dash where it did not run", () => {
    const metrics: Record<string, Metric> = {
      initialSync10k: sync(true),
      initialSyncMetadata: buildMetric('initialSyncMetadata', 'ms', 'lower', { rxinformer: ok(400), clientNode: ok(2000) }),
    };
    expect(tableColumns(metrics)).toEqual(['rxinformer', 'clientGo', 'clientGoProtobuf', 'clientNode', 'limit']);
    const lines = renderTable(metrics).split('\n');
    expect(lines[0]).toBe('| metric | unit | rxinformer | client-go (JSON) | client-go (protobuf) | client-node | limit | goal | ratio |');
    expect(lines[2]).toBe(
      '| initialSync10k | ms (lower is better) | 900 | 1,200 (1,000–1,200) | failed: Error: no protobuf | 2,000 | 800 | ≤ 0.5× client-node | 0.45 met |',
    );
    expect(lines).toContain('|  |  |  |  |  |  |  | ≤ 1× client-go (JSON) | 0.75 met |');
    expect(lines).toContain('| initialSyncMetadata | ms (lower is better) | 400 | – | – | 2,000 | – |  |  |');
  });
});

describe('renderRealRun', () => {
  const server: RealServerFigures = {
    version: 'v1.36.3',
    startMs: { first: 6000, again: [] },
    restartMs: Number.NaN,
    seeding: { pods: 2000, writes: 4000, ms: 10_000, writesPerSecond: 400 },
    seedingLarge: { pods: 98_000, writes: 196_000, ms: 500_000, writesPerSecond: 392 },
    updates: { count: 4000, ms: 40_000, perSecond: 100 },
    rss: { started: rss(265_216, 44_032), seeded: rss(512_000, 90_000), end: rss(600_000, 100_000) },
  };
  const meta = {
    date: '2026-11-27T13:30:00.000Z',
    node: 'v22.23.3',
    cpus: '2× AMD EPYC',
    loadAverage: { start: [4.5, 4, 3.5], end: [6, 5, 4] },
    rounds: 3,
    roundsLarge: 1,
    watchUpdates: 4000,
    durationS: 600.4,
  };

  it('should say when and under what load it ran, with the table, the plot and the server, between the markers', () => {
    const metrics = { heapPerObject: buildMetric('heapPerObject', 'bytes/pod', 'lower', { rxinformer: ok(5000), clientGo: ok(10_000) }) };
    const text = renderRealRun({ metrics, server, meta, pods: 2000, podsLarge: 100_000 }, true);
    const lines = text.split('\n');
    expect(lines[0]).toBe(REAL_MARKERS.start);
    expect(lines.at(-1)).toBe(REAL_MARKERS.end);
    expect(text).toContain('One run on 2026-11-27 13:30 UTC, 600 s in all');
    expect(text).toContain('4.50 / 4.00 / 3.50 at the start and 6.00 / 5.00 / 4.00 at the end');
    expect(text).toContain('no warm-up; the 100k sync: 1 round, no warm-up)');
    expect(text).toContain('**1 of 2 goals met.**'); // client-node's goal is not measured here
    expect(text).toContain('![measured ratio against each goal, on the real server](benchmarks-real.svg)');
    // Starts not timed: no rows for them; the top-up is its own row.
    expect(text).not.toContain('start again');
    expect(text).not.toContain('killed and ready again');
    expect(text).toContain('| 98,000 more pods created through the API (create + status, 16 in flight) | 500,000 ms, 392 writes/s |');
    expect(renderRealRun({ metrics, server, meta, pods: 2000, podsLarge: 0 })).not.toContain(REAL_MARKERS.start);
  });
});

describe('clientGoPeerArgs', () => {
  it('should pass the recorded revision to list at, with the watch-list off', () => {
    expect(
      clientGoPeerArgs({ kubeConfig: 'kc', mode: 'bench watch', resource: 'pods', listAt: '123', watchList: false, events: 5 }, '/kc'),
    ).toEqual(['bench', 'watch', '--kubeconfig=/kc', '--resource=pods', '--watch-list=off', '--list-at=123', '--events=5']);
  });
});

(serverKinds().includes('real') ? describe : describe.skip)('runRealBench at a tiny size', () => {
  it(
    'should measure every contender, client-go with JSON and with protobuf included, on a real kube-apiserver',
    async () => {
      const { metrics, server } = await runRealBench({
        pods: 50,
        updates: 50,
        rounds: 1,
        podsLarge: 60,
        timeStarts: false,
        progress: () => {},
        onRun: () => () => {},
      });
      expect(Object.keys(metrics)).toEqual([
        'initialSync0.05k',
        'initialSyncMetadata',
        'watchThroughput0.05k',
        'watchThroughput0.05kNoFreeze',
        'watchThroughputWithMetrics',
        'heapPerObject',
        'heapPerObjectTransformed',
        'initialSync0.06k',
      ]);
      for (const name of ['initialSync0.05k', 'watchThroughput0.05k', 'heapPerObject', 'initialSync0.06k'])
        for (const contender of ['rxinformer', 'clientGo', 'clientGoProtobuf', 'clientNode', 'limit'] as const)
          expect({ name, contender, figure: typeof metrics[name][contender] === 'number' ? 'a number' : metrics[name][contender] }).toEqual(
            {
              name,
              contender,
              figure: 'a number',
            },
          );
      expect(metrics.heapPerObject.goal?.['rxinformer/clientGo']?.ratio).toEqual(expect.any(Number));
      expect(server.seedingLarge).toMatchObject({ pods: 10, writes: 20 });
    },
    START_TIMEOUT_MS + 600_000,
  );
});
