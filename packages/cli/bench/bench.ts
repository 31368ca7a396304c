/**
 * `npm run bench`: rxinformer, client-node 2.x and the limit (fetch + JSON.parse only), side by
 * side in one run against the simulator (in a child process), with each goal checked.
 *
 *   npm run bench                       # a table, progress on stderr
 *   npm run bench -- --json             # exactly one JSON object on stdout
 *   npm run bench -- --write-docs       # also docs/benchmarks.md's top section and docs/benchmarks.svg
 *   npm run bench -- --server real      # initial sync and watch replay against a real kube-apiserver
 *                                       # and etcd (realBench.ts), with the server's start time and memory
 *                                       # with client-go (JSON and protobuf) as contenders
 *   options: --rounds N (3) --rounds-large N (1) --pods N (10000) --pods-large N (100000; 0 skips;
 *            with --server real 0 by default)
 *            --updates M (20000) --template-pods (the simulator's default pods, alike, instead of
 *            pods as unalike as a real cluster's; the heap is measured on both either way)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { BARE_MAP, measureApplyCost } from './applyCost.ts';
import { renderChart } from './chart.ts';
import { renderSection, runSummary, spliceSection, type RunMeta } from './docs.ts';
import { measureHeapPerObject } from './heapPerObject.ts';
import { measureInitialSync } from './initialSync.ts';
import { buildMetric, goalsMet, renderReferences, renderTable, withReference, type BenchReport, type Metric } from './report.ts';
import { syncMetrics, watchMetrics } from './syncWatchMetrics.ts';
import { runRealBench } from './realBench.ts';
import { REAL_MARKERS, renderRealRun } from './realReport.ts';
import { startSimProcess } from './simProcess.ts';
import { measureWatchThroughput } from './watchThroughput.ts';

const usage =
  'usage: npm run bench -- [--json] [--write-docs] [--server sim|real] [--rounds N] [--rounds-large N] [--pods N] [--pods-large N] [--updates M] [--template-pods]';

function options() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      'write-docs': { type: 'boolean' },
      rounds: { type: 'string' },
      'rounds-large': { type: 'string' },
      pods: { type: 'string' },
      'pods-large': { type: 'string' },
      updates: { type: 'string' },
      'template-pods': { type: 'boolean' },
      server: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const int = (name: keyof typeof values, fallback: number, min: number): number => {
    const text = values[name];
    if (text === undefined) return fallback;
    if (typeof text !== 'string' || !/^\d+$/.test(text) || Number(text) < min)
      throw new Error(`--${name} must be an integer ≥ ${min}, got ${String(text)}\n${usage}`);
    return Number(text);
  };
  const server = values.server ?? 'sim';
  if (server !== 'sim' && server !== 'real') throw new Error(`--server must be sim or real, got ${server}\n${usage}`);
  return {
    server,
    json: values.json === true,
    writeDocs: values['write-docs'] === true,
    help: values.help === true,
    rounds: int('rounds', 3, 1),
    roundsLarge: int('rounds-large', 1, 1),
    pods: int('pods', 10_000, 1),
    // Creating 100k pods through a real server's API takes long: there only when asked for.
    podsLarge: int('pods-large', server === 'real' ? 0 : 100_000, 0),
    updates: int('updates', 20_000, 1),
    // Pods as unalike as a real cluster's unless told otherwise; the heap is measured on both.
    unalike: values['template-pods'] !== true,
  };
}

/**
 * The heap per pod on the other kind of pods (the simulator's alike pods when the run uses unalike
 * ones, and the other way round), in a simulator of its own: what the pods' likeness does to it.
 */
async function heapOnOtherPods(
  o: ReturnType<typeof options>,
  onRound: (name: string, round: number) => void,
): Promise<Record<string, Metric>> {
  const other = await startSimProcess({ historyEvents: 2 * o.pods + 1_000, unalike: !o.unalike });
  try {
    await other.send({ cmd: 'seed', count: o.pods });
    const heap = await measureHeapPerObject(other.kubeconfig, o.pods, {
      rounds: o.rounds,
      onRun: onRound,
      contenders: ['rxinformer', 'rxinformerMetadata', 'clientNode'],
    });
    const name = o.unalike ? 'heapPerObjectAlikePods' : 'heapPerObjectUnalikePods';
    return {
      [name]: buildMetric(name, 'bytes/pod', 'lower', { rxinformer: heap.rxinformer, clientNode: heap.clientNode }, 'heapPerObject'),
      [`${name}Metadata`]: buildMetric(
        `${name}Metadata`,
        'bytes/pod',
        'lower',
        {
          rxinformer: heap.rxinformerMetadata,
          clientNode: heap.clientNode,
          limit: heap.rxinformer,
        },
        'heapPerObjectMetadata',
      ),
    };
  } finally {
    await other.close();
  }
}

const NOTE = "shared 2-core machine: other engineers' tests and benchmarks ran at the same time";
const started = performance.now();
const progress = (text: string) =>
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);
const onRun = (metric: string) => (name: string, round: number) =>
  progress(`${metric}: ${name} ${round < 0 ? 'warm-up' : `round ${round + 1}`}`);

async function main(): Promise<void> {
  const o = options();
  if (o.help) {
    console.log(usage);
    return;
  }
  const loadStart = loadavg();
  const date = new Date().toISOString();
  if (o.server === 'real') return realMain(o, loadStart, date);
  // An unalike pod is two writes (the controller's create, the kubelet's status).
  const sim = await startSimProcess({ historyEvents: 2 * o.pods + o.updates + 1_000, unalike: o.unalike });
  const metrics: Record<string, Metric> = {};
  const stream = { pods: o.pods, updates: o.updates, listAt: '' };
  try {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig);
    progress(`simulator pid ${sim.pid}: seeding ${o.pods} pods`);
    await sim.send({ cmd: 'seed', count: o.pods });

    const sync = await measureInitialSync(kc, o.pods, { rounds: o.rounds, onRun: onRun(`initialSync${o.pods / 1000}k`), metadata: true });
    Object.assign(metrics, syncMetrics(o.pods, sync));

    stream.listAt = (await sim.send({ cmd: 'state' })).resourceVersion;
    progress(`recording ${o.updates} updates after revision ${stream.listAt}`);
    await sim.send({ cmd: 'update', count: o.updates });
    const replays = await measureWatchThroughput(kc, stream, { rounds: o.rounds, onRun: onRun(`watchThroughput${o.pods / 1000}k`) });
    Object.assign(metrics, watchMetrics(o.pods, replays));

    const heap = await measureHeapPerObject(sim.kubeconfig, o.pods, { rounds: o.rounds, onRun: onRun('heapPerObject') });
    metrics.heapPerObjectMetadata = buildMetric('heapPerObjectMetadata', 'bytes/pod', 'lower', {
      rxinformer: heap.rxinformerMetadata,
      clientNode: heap.clientNode,
      limit: heap.rxinformer,
    });
    Object.assign(metrics, await heapOnOtherPods(o, onRun('heapPerObject, other pods')));
    metrics.heapPerObject = buildMetric('heapPerObject', 'bytes/pod', 'lower', {
      rxinformer: heap.rxinformer,
      clientNode: heap.clientNode,
      limit: heap.limit,
    });
    metrics.heapPerObjectTransformed = buildMetric('heapPerObjectTransformed', 'bytes/pod', 'lower', {
      rxinformer: heap.rxinformerTransformed,
      clientNode: heap.clientNode,
      limit: heap.limit,
    });
    // List views: the pods preset's projection and the server's Table rows, beside the full informer.
    for (const [name, outcome] of [
      ['heapPerObjectProjected', heap.rxinformerProjected],
      ['heapPerObjectTableRows', heap.rxinformerTable],
    ] as const)
      metrics[name] = buildMetric(name, 'bytes/pod', 'lower', { rxinformer: outcome, clientNode: heap.clientNode, limit: heap.rxinformer });

    const cost = await measureApplyCost({ rounds: o.rounds, onRun: onRun('applyCost100kVs1k (delta store at 1k and 100k, own process)') });
    metrics.applyCost100kVs1k = withReference(
      buildMetric('applyCost100kVs1k', 'ratio', 'lower', { rxinformer: cost.rxinformer }),
      'bareMap',
      BARE_MAP,
      cost.bareMap,
    );

    if (o.podsLarge > o.pods) {
      progress(`seeding ${o.podsLarge - o.pods} more pods`);
      await sim.send({ cmd: 'seed', count: o.podsLarge - o.pods });
      const large = `initialSync${o.podsLarge / 1000}k`;
      metrics[large] = buildMetric(
        large,
        'ms',
        'lower',
        await measureInitialSync(kc, o.podsLarge, { rounds: o.roundsLarge, warmup: 0, onRun: onRun(large) }),
        'initialSync100k',
      );
    }
  } finally {
    await sim.close();
  }

  const meta = runMeta(o, loadStart, date);
  const report: BenchReport = {
    metrics,
    ...meta,
    pods: { small: o.pods, large: o.podsLarge },
    goalsMet: goalsMet(metrics),
    note: NOTE,
  };
  if (o.writeDocs) {
    const docs = new URL('../../../docs/', import.meta.url);
    const page = new URL('benchmarks.md', docs);
    writeFileSync(page, spliceSection(readFileSync(page, 'utf8'), renderSection(report, meta)));
    writeFileSync(new URL('benchmarks.svg', docs), renderChart(metrics, { subtitle: runSummary(meta) }));
    progress('wrote docs/benchmarks.md (side by side) and docs/benchmarks.svg');
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const { met, total } = goalsMet(metrics);
    console.log(`rxinformer side by side — ${runSummary(meta)}; medians of ${o.rounds} rounds (min–max)\n`);
    console.log(renderTable(metrics));
    const references = renderReferences(metrics);
    if (references.length > 0) console.log(`\nReferences measured in the same run:\n${references.join('\n')}`);
    console.log(`\n${met} of ${total} goals met. ${String(report.note)}.`);
  }
}

/** What describes the run: when, where, at what load, how long. */
function runMeta(o: ReturnType<typeof options>, loadStart: number[], date: string): RunMeta {
  return {
    date,
    node: process.version,
    cpus: `${cpus().length}× ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    loadAverage: { start: loadStart, end: loadavg() },
    rounds: o.rounds,
    roundsLarge: o.roundsLarge,
    watchUpdates: o.updates,
    durationS: (performance.now() - started) / 1000,
  };
}

/** `--server real`: the initial sync, the watch replay and the heap against kube-apiserver, client-go beside; and the server's figures. */
async function realMain(o: ReturnType<typeof options>, loadStart: number[], date: string): Promise<void> {
  const { metrics, server } = await runRealBench({
    pods: o.pods,
    updates: o.updates,
    rounds: o.rounds,
    podsLarge: o.podsLarge,
    progress,
    onRun,
  });
  const meta = { ...runMeta(o, loadStart, date), roundsLarge: o.podsLarge > o.pods ? 1 : 0 };
  const report: BenchReport = {
    metrics,
    server,
    ...meta,
    pods: { small: o.pods, large: o.podsLarge },
    goalsMet: goalsMet(metrics),
    note: NOTE,
  };
  const run = { metrics, server, meta, pods: o.pods, podsLarge: o.podsLarge };
  if (o.writeDocs) {
    const docs = new URL('../../../docs/', import.meta.url);
    const page = new URL('benchmarks.md', docs);
    const text = readFileSync(page, 'utf8');
    if (!text.includes(REAL_MARKERS.start)) throw new Error(`docs/benchmarks.md has no marker ${REAL_MARKERS.start}`);
    writeFileSync(page, spliceSection(text, renderRealRun(run, true), REAL_MARKERS));
    const title = 'rxinformer on a real kube-apiserver: measured ratio vs goal';
    writeFileSync(new URL('benchmarks-real.svg', docs), renderChart(metrics, { title, subtitle: runSummary(meta) }));
    progress('wrote docs/benchmarks.md (on a real kube-apiserver) and docs/benchmarks-real.svg');
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  console.log(`rxinformer side by side on a real kube-apiserver\n\n${renderRealRun(run)}\n\n${NOTE}.`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130)); // 'exit' kills the children
// Exit once the answer is out: a contender that timed out may still hold a connection open.
main().then(
  () => process.stdout.write('', () => process.exit(0)),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
