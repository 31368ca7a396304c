import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { RealServerFigures } from '../bench/realBench.ts';
import { renderServerFigures } from '../bench/realReport.ts';
import { processRss } from '../bench/serverRss.ts';
import { syncMetrics, watchMetrics } from '../bench/syncWatchMetrics.ts';
import { median } from '../bench/rounds.ts';

// The pure parts of `npm run bench -- --server real` and the memory reading; the benchmark itself
// measures (no timings asserted here).

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

describe('renderServerFigures', () => {
  it('should show the start times, the writes and the memory in MiB', () => {
    const rss = (apiServerKiB: number, etcdKiB: number) => ({
      apiServer: { pid: 1, rssKiB: apiServerKiB, peakKiB: apiServerKiB + 1024 },
      etcd: { pid: 2, rssKiB: etcdKiB, peakKiB: etcdKiB },
    });
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
