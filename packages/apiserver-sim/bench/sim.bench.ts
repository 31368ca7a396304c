/**
 * Simulator benchmark: `npm run bench:sim [-- --pods 100000 --events 200000 --json]`.
 *
 * 1. A 100k-pod list served with paging (limit 500, like an informer), over real HTTP, every
 *    page parsed by the client: total time and pods/s.
 * 2. Watch events per second to one watcher over real HTTP: pods updated as fast as the storage
 *    takes them, every line parsed and counted by the client.
 */
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import type { KubeObject } from '@rxinformer/core';
import { startApiServer } from '../src/index.ts';
import { realisticPod as benchPod } from '../src/realisticPod.ts';

const { values } = parseArgs({ options: { pods: { type: 'string' }, events: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' } } });
const POD_COUNT = Number(values.pods ?? 100_000);
const EVENT_COUNT = Number(values.events ?? 200_000);
const LIMIT = Number(values.limit ?? 500);

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

async function main(): Promise<void> {
  const sim = await startApiServer({ port: 0, seed: 1, history: { maxEvents: 20_000 } });
  const results: Record<string, number | string> = {};
  try {
    // ---- populate
    const t0 = performance.now();
    const sample = benchPod(0);
    for (let i = 0; i < POD_COUNT; i++) sim.storage.create('pods', benchPod(i), 'default');
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

    // ---- watch throughput
    const names = Array.from({ length: Math.min(POD_COUNT, 5000) }, (_, i) => benchPod(i).metadata!.name!);
    const rv = sim.storage.resourceVersion;
    let received = 0;
    let firstAt = 0;
    const done = new Promise<number>((resolve, reject) => {
      const req = request(`${base}?watch=true&resourceVersion=${rv}`, { agent: false }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i: number;
          let start = 0;
          while ((i = buf.indexOf('\n', start)) >= 0) {
            const ev = JSON.parse(buf.slice(start, i)) as { type: string; object: KubeObject };
            if (ev.type === 'MODIFIED') received += 1;
            start = i + 1;
          }
          buf = buf.slice(start);
          if (received >= EVENT_COUNT) {
            resolve(performance.now());
            req.destroy();
          }
        });
      });
      req.on('error', (e) => {
        if (received < EVENT_COUNT) reject(e);
      });
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    firstAt = performance.now();
    let produced = 0;
    const produce = () => {
      // produce in bursts, yielding to the event loop so the socket drains
      const burst = Math.min(500, EVENT_COUNT - produced);
      for (let i = 0; i < burst; i++, produced++) {
        const name = names[produced % names.length];
        const cur = sim.storage.get('pods', 'default', name) as KubeObject & { metadata: Record<string, unknown> };
        sim.storage.update('pods', { ...cur, metadata: { ...cur.metadata, annotations: { ...(cur.metadata.annotations as object), 'bench/step': String(produced) } } }, 'default', name);
      }
      if (produced < EVENT_COUNT) setImmediate(produce);
    };
    produce();
    const end = await done;
    const watchMs = end - firstAt;
    results.watchEvents = received;
    results.watchMs = Math.round(watchMs);
    results.watchEventsPerSec = Math.round(received / (watchMs / 1000));
  } finally {
    await sim.close();
  }
  if (values.json) console.log(JSON.stringify(results));
  else {
    console.log(`pods: ${POD_COUNT} (${results.podBytes} bytes each), populated in ${results.populateMs} ms`);
    console.log(`paged list (limit ${LIMIT}): ${results.listPods} pods in ${results.listPages} pages, ${results.listMs} ms = ${results.listPodsPerSec} pods/s`);
    console.log(`watch: ${results.watchEvents} events to one watcher in ${results.watchMs} ms = ${results.watchEventsPerSec} events/s`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
