/**
 * Simulator benchmark: `npm run bench:sim [-- --pods 100000 --events 200000 --json]`.
 *
 * 1. A 100k-pod list served with paging (limit 500, like an informer), over real HTTP, every
 *    page parsed by the client: total time and pods/s.
 * 2. Watch events per second to one watcher over real HTTP, live churn: pods updated as fast as
 *    the storage takes them while the watch runs. The watcher is its own process
 *    (`watchClient.ts`): it reads every byte, splits and counts every line, checks each line starts
 *    as a MODIFIED event, and fully `JSON.parse`s every 100th line, checking the sampled
 *    resourceVersions strictly increase.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { KubeObject } from '@rxinformer/core';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { realisticPod as benchPod } from '../src/realisticPod.ts';

const { values } = parseArgs({
  options: { pods: { type: 'string' }, events: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' } },
});
const POD_COUNT = Number(values.pods ?? 100_000);
const EVENT_COUNT = Number(values.events ?? 200_000);
const LIMIT = Number(values.limit ?? 500);
/** Watch history kept (and replayed in the history-replay figure). */
const HISTORY = 50_000;

function getJson(url: string): Promise<any> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Updates `names` of `resource` as fast as the watcher takes them and times EVENT_COUNT events
 * arriving, parsed, in a watcher process. The producer pauses while 8 MiB wait unsent (the server
 * drops a watcher 64 MiB behind).
 */
async function watchThroughput(
  sim: ApiServer,
  resource: string,
  names: string[],
  replay?: { fromRv: number; events: number },
): Promise<Record<string, number>> {
  const base = `${sim.url}/api/v1/namespaces/default/${resource}`;
  const rv = replay?.fromRv ?? sim.storage.resourceVersion;
  const want = replay?.events ?? EVENT_COUNT;
  const cpu0 = process.cpuUsage();
  const client = spawn(
    process.execPath,
    [fileURLToPath(new URL('./watchClient.ts', import.meta.url)), `${base}?watch=true&resourceVersion=${rv}`, String(want)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: client.stdout! });
  const messages: string[] = [];
  let wake: (() => void) | undefined;
  lines.on('line', (l) => {
    messages.push(l);
    wake?.();
  });
  const next = async (): Promise<string> => {
    while (messages.length === 0) await new Promise<void>((r) => (wake = r));
    return messages.shift()!;
  };
  if ((await next()) !== 'ready') throw new Error('watch client did not start');
  const session = sim.watches.sessions().find((s) => s.spec.res.resource === resource)!;
  let produced = 0;
  let stop = replay !== undefined; // a replay sends what the history holds: no writes
  let waits = 0;
  const t0 = performance.now();
  const produce = () => {
    if (stop) return;
    if (session.bufferedBytes > 8 * 1024 * 1024) {
      waits += 1;
      setTimeout(produce, 1);
      return;
    }
    // bursts of updates, yielding to the event loop so the socket drains
    const burst = Math.min(200, EVENT_COUNT - produced);
    for (let i = 0; i < burst; i++, produced++) {
      const name = names[produced % names.length];
      const cur = sim.storage.get(resource, 'default', name) as KubeObject & { metadata: Record<string, unknown> };
      // owned: the bench never mutates what it hands over, so the store skips its defensive copy
      sim.storage.update(
        resource,
        { ...cur, metadata: { ...cur.metadata, annotations: { ...(cur.metadata.annotations as object), 'bench/step': String(produced) } } },
        'default',
        name,
        { owned: true },
      );
    }
    if (produced < EVENT_COUNT) setImmediate(produce);
  };
  produce();
  const [word, n, clientCpuMs, parsed, clientMs] = (await next()).split(' ');
  // a replay starts with the response: timed by the watcher from its first byte
  const ms = replay ? Number(clientMs) : performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  stop = true;
  client.kill();
  if (word === 'invalid') throw new Error(`the ${resource} watcher refused the stream: ${[n, clientCpuMs, parsed].join(' ')}`);
  if (word !== 'done') throw new Error(`the ${resource} watch ended after ${n} of ${want} events`);
  const events = Number(n);
  const sample = sim.storage.get(resource, 'default', names[0]);
  return {
    Bytes: JSON.stringify({ type: 'MODIFIED', object: sample }).length + 1,
    Events: events,
    Ms: Math.round(ms),
    EventsPerSec: Math.round(events / (ms / 1000)),
    ServerCpuUsPerEvent: Math.round(((cpu.user + cpu.system) / events) * 10) / 10,
    ClientCpuUsPerEvent: Math.round(((Number(clientCpuMs) * 1000) / events) * 10) / 10,
    BackpressureWaits: waits,
    ParsedLines: Number(parsed),
  };
}

async function main(): Promise<void> {
  const sim = await startApiServer({ port: 0, seed: 1, history: { maxEvents: HISTORY } });
  const results: Record<string, number | string> = {};
  try {
    // ---- populate
    const t0 = performance.now();
    const sample = benchPod(0);
    for (let i = 0; i < POD_COUNT; i++) sim.storage.create('pods', benchPod(i), 'default', { owned: true });
    results.populateMs = Math.round(performance.now() - t0);
    results.podBytes = JSON.stringify(sim.storage.get('pods', 'default', sample.metadata!.name!)).length;

    // ---- paged list
    const base = `${sim.url}/api/v1/namespaces/default/pods`;
    await getJson(`${base}?limit=${LIMIT}`); // warm-up
    const t1 = performance.now();
    let count = 0;
    let pages = 0;
    let token: string | undefined;
    do {
      const page = await getJson(`${base}?limit=${LIMIT}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      count += page.items.length;
      pages += 1;
      token = page.metadata.continue;
    } while (token);
    const listMs = performance.now() - t1;
    if (count !== POD_COUNT) throw new Error(`listed ${count} pods, expected ${POD_COUNT}`);
    results.listPods = count;
    results.listPages = pages;
    results.listMs = Math.round(listMs);
    results.listPodsPerSec = Math.round(count / (listMs / 1000));

    // ---- watch throughput: realistic ~4 KB pods, then small ConfigMaps (~0.4 KB)
    const names = Array.from({ length: Math.min(POD_COUNT, 5000) }, (_, i) => benchPod(i).metadata!.name!);
    const beforeChurn = sim.storage.storage.resourceVersion;
    const pods = await watchThroughput(sim, 'pods', names);
    // history replay: a watch from the oldest revision still in the history (and after the pods'
    // creation), no writes meanwhile
    const fromRv = Math.max(beforeChurn, sim.storage.storage.watchCompactedRevision('/v1/pods'));
    const replay = await watchThroughput(sim, 'pods', names, { fromRv, events: sim.storage.storage.resourceVersion - fromRv });
    const cmNames: string[] = [];
    for (let i = 0; i < 1000; i++)
      cmNames.push(
        sim.storage.create('configmaps', { metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: 'value' } }, 'default', {
          owned: true,
        }).metadata!.name!,
      );
    const small = await watchThroughput(sim, 'configmaps', cmNames);
    for (const [k, v] of Object.entries(pods)) results[`watch${k}`] = v;
    for (const [k, v] of Object.entries(small)) results[`watchSmall${k}`] = v;
    for (const [k, v] of Object.entries(replay)) results[`watchReplay${k}`] = v;
  } finally {
    await sim.close();
  }
  if (values.json) console.log(JSON.stringify(results));
  else {
    console.log(`pods: ${POD_COUNT} (${results.podBytes} bytes each), populated in ${results.populateMs} ms`);
    console.log(
      `paged list (limit ${LIMIT}): ${results.listPods} pods in ${results.listPages} pages, ${results.listMs} ms = ${results.listPodsPerSec} pods/s`,
    );
    console.log(
      'watcher (own process): reads every byte, splits/counts every line, checks each starts as MODIFIED, JSON.parses every 100th line and checks those RVs strictly increase',
    );
    for (const [label, p] of [
      ['live churn, pods', 'watch'],
      ['live churn, configmaps', 'watchSmall'],
      ['history replay, pods', 'watchReplay'],
    ] as const) {
      console.log(
        `watch, ${label} (${results[`${p}Bytes`]} B/event): ${results[`${p}Events`]} events to one watcher in ${results[`${p}Ms`]} ms = ${results[`${p}EventsPerSec`]} events/s; ` +
          `server CPU ${results[`${p}ServerCpuUsPerEvent`]} µs/event${p === 'watchReplay' ? '' : ' (write path included)'}, watcher CPU ${results[`${p}ClientCpuUsPerEvent`]} µs/event, ${results[`${p}ParsedLines`]} lines parsed in full`,
      );
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
