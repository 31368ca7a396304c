#!/usr/bin/env node
/**
 * `npm run bench:angular [-- --pods 300 --events 1000 --rate 200 --runs 3 --json]`: the Angular
 * example app (built by the Angular CLI from the packed packages) in headless Chromium against the
 * simulator, filtered to one namespace of three. For 1,000 watch events on pods outside the filter,
 * then inside it, and for the same time with no event at all: the page's main-thread time (Chrome's
 * TaskDuration and ScriptDuration over the DevTools protocol), its renders (the app's counters) and
 * the DOM mutations of its table. Then what rxinformer adds to the initial bundle (angularBundle.ts).
 */
import { parseArgs } from 'node:util';
import type { CDPSession, Page } from 'playwright-core';
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { launchChromium } from '@rxinformer/browser-example/chromium';
import { startPageServer } from '@rxinformer/browser-example/pageServer';
import type { KubeObject } from '@rxinformer/core';
import { renders, rowKeys, selectNamespace, tableMutations, waitForPhase, watchTable } from '../test/angularPage.ts';
import { buildAngularApp } from '../test/angularApp.ts';
import { bundleFigures } from './angularBundle.ts';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '300' },
    events: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const PODS = Number(values.pods);
const EVENTS = Number(values.events);
const RATE = Number(values.rate); // events per second; 0: all at once
const RUNS = Number(values.runs);
const log = (line: string) => {
  if (!values.json) console.log(line);
};

type Pod = KubeObject & { status?: { phase?: string } };
type Scenario = 'outside' | 'inside' | 'idle';

/** One measurement: main-thread ms (Chrome's own accounting), renders and table mutations. */
interface Measurement {
  taskMs: number;
  scriptMs: number;
  /** Style recalculation and layout (Chrome's RecalcStyleDuration + LayoutDuration). */
  layoutMs: number;
  passes: number;
  tableRenders: number;
  logRenders: number;
  tableMutations: number;
}

async function chromeMetrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

/** Writes `EVENTS` changes of pods of `namespace` at `RATE` per second: labels (outside) or phases (inside). */
async function writeEvents(sim: ApiServer, namespace: string, scenario: Scenario): Promise<void> {
  const pods = (sim.storage.list('pods') as Pod[]).filter((p) => p.metadata?.namespace === namespace && p.metadata?.name !== 'marker');
  const perTick = RATE > 0 ? Math.max(1, Math.round(RATE / 100)) : EVENTS;
  for (let i = 0; i < EVENTS;) {
    for (let n = 0; n < perTick && i < EVENTS; n++, i++) {
      const pod = sim.storage.get('pods', namespace, pods[i % pods.length].metadata!.name!) as Pod;
      if (scenario === 'outside') {
        sim.storage.update(
          'pods',
          { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata?.labels, bench: String(i) } } },
          namespace,
          pod.metadata!.name!,
        );
      } else {
        const status = { ...pod.status, phase: pod.status?.phase === 'Running' ? 'Pending' : 'Running' };
        sim.storage.update('pods', { ...pod, status }, namespace, pod.metadata!.name!, { subresource: 'status' });
      }
    }
    if (RATE > 0) await new Promise((r) => setTimeout(r, (perTick / RATE) * 1000));
  }
}

let markers = 0;

/** One scenario, from the first event until the page has rendered a marker change written after the last. */
async function measure(page: Page, cdp: CDPSession, sim: ApiServer, scenario: Scenario): Promise<Measurement> {
  await watchTable(page);
  const [m0, r0] = [await chromeMetrics(cdp), await renders(page)];
  if (scenario === 'idle') await new Promise((r) => setTimeout(r, RATE > 0 ? (EVENTS / RATE) * 1000 : 0));
  else await writeEvents(sim, scenario === 'inside' ? 'web' : 'batch', scenario);
  const phase = `Marker${++markers}`;
  const marker = sim.storage.get('pods', 'web', 'marker') as Pod;
  sim.storage.update('pods', { ...marker, status: { ...marker.status, phase } }, 'web', 'marker', { subresource: 'status' });
  await waitForPhase(page, 'web/marker', phase);
  const [m1, r1] = [await chromeMetrics(cdp), await renders(page)];
  const mutations = (await tableMutations(page)).filter((m) => m.key !== 'web/marker');
  return {
    taskMs: (m1.TaskDuration - m0.TaskDuration) * 1000,
    scriptMs: (m1.ScriptDuration - m0.ScriptDuration) * 1000,
    layoutMs: (m1.RecalcStyleDuration - m0.RecalcStyleDuration + m1.LayoutDuration - m0.LayoutDuration) * 1000,
    passes: r1.passes - r0.passes,
    tableRenders: r1.table - r0.table - 1, // less the marker's
    logRenders: r1.log - r0.log - 1,
    tableMutations: mutations.length,
  };
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const app = await buildAngularApp(undefined, log);
  log('measuring the bundles…');
  const bundle = await bundleFigures(app.consumer);
  const sim = await startApiServer({ port: 0, seed: 1 });
  const namespaces = ['default', 'web', 'batch'];
  for (const ns of namespaces)
    if (!sim.storage.find('namespaces', undefined, ns)) sim.storage.create('namespaces', { metadata: { name: ns } });
  createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces, seed: 1 }).seed(PODS);
  sim.storage.create('pods', { metadata: { name: 'marker' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, 'web');
  const server = await startPageServer({ upstream: sim.url, page: { root: app.liveRoot } });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(server.url);
    await page.waitForFunction((n) => document.querySelectorAll('#pods tr[data-key]').length === n, PODS + 1, { timeout: 60_000 });
    await selectNamespace(page, 'web');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#pods tr')].every((tr) => tr.getAttribute('data-key')?.startsWith('web/')),
    );
    log(
      `${PODS + 1} pods, ${(await rowKeys(page)).length} shown (namespace web); ${EVENTS} events per run at ${RATE || 'once'}/s, ${RUNS} runs`,
    );
    const results: Record<Scenario, Measurement[]> = { outside: [], inside: [], idle: [] };
    for (let run = 0; run < RUNS; run++)
      for (const scenario of ['outside', 'inside', 'idle'] as const) results[scenario].push(await measure(page, cdp, sim, scenario));
    const summary = Object.fromEntries(
      Object.entries(results).map(([scenario, ms]) => [
        scenario,
        Object.fromEntries(Object.keys(ms[0]).map((k) => [k, median(ms.map((m) => m[k as keyof Measurement]))])),
      ]),
    ) as unknown as Record<Scenario, Measurement>;
    const figures = { pods: PODS + 1, events: EVENTS, rate: RATE, runs: RUNS, summary, results, bundle };
    if (values.json) console.log(JSON.stringify(figures, null, 2));
    else report(figures.summary, bundle);
  } finally {
    await browser.close();
    await server.close();
    await sim.close();
  }
}

function report(summary: Record<Scenario, Measurement>, bundle: Awaited<ReturnType<typeof bundleFigures>>): void {
  const per1000 = (x: number) => ((x * 1000) / EVENTS).toFixed(1);
  console.log(
    '\nscenario | main-thread ms / 1,000 events: all tasks (idle subtracted), script, style+layout | CD passes | table renders / event | log renders | table mutations',
  );
  for (const s of ['outside', 'inside', 'idle'] as const) {
    const m = summary[s];
    const net = s === 'idle' ? '' : ` (net ${per1000(m.taskMs - summary.idle.taskMs)})`;
    console.log(
      `${s} | ${per1000(m.taskMs)}${net}, ${per1000(m.scriptMs)}, ${per1000(m.layoutMs)} | ${m.passes} | ${(m.tableRenders / EVENTS).toFixed(3)} | ${m.logRenders} | ${m.tableMutations}`,
    );
  }
  console.log(`\nfirst program main bundle: ${bundle.firstProgram.bytes} B, ${bundle.firstProgram.gzip} B gzip`);
  console.log(`same app over a plain signal: ${bundle.baseline.bytes} B, ${bundle.baseline.gzip} B gzip`);
  console.log(`rxinformer adds: ${bundle.added.bytes} B, ${bundle.added.gzip} B gzip`);
  console.log(`example app main bundle: ${bundle.exampleApp.bytes} B, ${bundle.exampleApp.gzip} B gzip; by package (minified):`);
  for (const [name, bytes] of Object.entries(bundle.exampleByPackage)) console.log(`  ${name}: ${bytes} B`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
