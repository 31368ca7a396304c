/**
 * A tab through the dashboard hub against a tab with its own watches, in headless Chromium, over
 * the simulator holding a cluster under churn (default 500 nodes, 10,000 pods, 100 writes/s): the
 * same bench page with informers of pods and nodes on its main thread, either over
 * `fetchListerWatcher` (its own lists and watches, through the page server's proxy) or over one
 * WebSocket to a hub (`@rxinformer/hub` in this process, its informers shared), holding full objects
 * or projections (core's presets, projected on the hub). Per page: bytes the tab received (CDP
 * Network: HTTP bodies and WebSocket payloads) until synced and per second of the window, main-thread
 * busy and CPU ms per second (CDP TaskDuration, ThreadTime), over the baseline page's; median and
 * range of the rounds. Prints JSON.
 *
 *   npm run bench:hub-tab -- [--nodes 500] [--pods 10000] [--rate 100] [--rounds 3] [--warmup 5] [--window 20]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInformerFactory, fetchListerWatcher } from '@rxinformer/core';
import { createHub } from '@rxinformer/hub';
import { startCluster } from './cluster.ts';
import type { PageConfig, PageFigures } from './measurePage.ts';
import { runBench, stat, withBenchBrowser } from './runBench.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const cluster = await startCluster({ nodes: arg('--nodes', 500), pods: arg('--pods', 10_000), writesPerSecond: arg('--rate', 100) });
// The hub: one informer per resource for every tab, each user allowed everything (a bench of the
// transport, not of authorization: docs/hub-security.md's checks are the hub's tests').
const hub = createHub({
  clusters: { default: createInformerFactory((resource, scope) => fetchListerWatcher({ baseUrl: cluster.sim.url, resource, ...scope })) },
  authenticator: { authenticate: () => Promise.resolve({ user: { username: 'bench', groups: ['system:authenticated'] } }) },
  authorizer: { authorize: () => Promise.resolve({ allowed: true, reason: 'the bench allows everything' }) },
  origins: 'any',
});
const hubServer = createServer((_, res) => res.writeHead(404).end());
hub.attach(hubServer);
await new Promise<void>((resolve) => hubServer.listen(0, '127.0.0.1', resolve));
const hubUrl = `ws://127.0.0.1:${(hubServer.address() as AddressInfo).port}/hub`;

const pages: PageConfig[] = [
  { name: 'none', path: '/?mode=none' },
  ...(['full', 'projected'] as const).flatMap((view) => [
    { name: `own watches ${view}`, path: `/?mode=main&view=${view}`, countBytes: true },
    { name: `hub ${view}`, path: `/?mode=hub&view=${view}&hub=${encodeURIComponent(hubUrl)}`, countBytes: true },
  ]),
];
const started = new Date();
try {
  const timing = {
    warmupMs: arg('--warmup', 5) * 1000,
    windowMs: arg('--window', 20) * 1000,
    syncTimeoutMs: 600_000,
    burst: { count: 0, perSecond: 1, tailMs: 0 },
  };
  const options = { rounds: arg('--rounds', 3), timing, pages, log: (line: string) => process.stderr.write(`${line}\n`) };
  const results = await withBenchBrowser(cluster, (browser, url) => runBench(browser, url, cluster, options));
  const ok = (rounds: (PageFigures | { error: string })[]) => rounds.filter((r): r is PageFigures => !('error' in r));
  const summary = results.map((r) => ({
    page: r.name,
    held: r.held,
    syncMs: r.syncMs,
    bytesToSync: stat(ok(r.rounds).flatMap((f) => (f.bytes ? [f.bytes.toSync] : []))),
    bytesPerS: stat(ok(r.rounds).flatMap((f) => (f.bytes ? [f.bytes.perS] : []))),
    busyMsPerS: r.busyMsPerS,
    addedBusyMsPerS: r.addedBusyMsPerS,
    cpuMsPerS: r.cpuMsPerS,
    addedCpuMsPerS: r.addedCpuMsPerS,
    writesPerS: stat(ok(r.rounds).map((f) => f.writesPerS)),
    errors: r.rounds.flatMap((f) => ('error' in f ? [f.error] : [])),
  }));
  const meta = { started: started.toISOString(), seconds: Math.round((Date.now() - started.getTime()) / 1000), ...cluster.held() };
  console.log(JSON.stringify({ meta, timing, hub: hub.metrics(), summary }, null, 2));
} finally {
  await hub.close();
  hubServer.close();
  await cluster.close();
}
