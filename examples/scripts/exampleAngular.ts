#!/usr/bin/env node
/**
 * `npm run example:angular [-- --port 8080 --pods 30 --rate 2 --seed 1 --duration S] [--http1 | --cert F --key F]`:
 * the Angular example for a person. Builds the app from the packed packages (see
 * test/angularApp.ts), starts the simulator with seeded pods in three namespaces, a churn and
 * changing pod phases, serves the built app behind the same-origin proxy (HTTP/2 over TLS with the
 * development certificate, unless told otherwise), prints the URL and runs until Ctrl-C.
 */
import { startBrowserExample } from '@rxinformer/browser-example/browserExample';
import { exampleOptions, exampleTls, fail, runUntilStopped, TLS_USAGE } from '@rxinformer/browser-example/exampleCommand';
import type { KubeObject } from '@rxinformer/core';
import { buildAngularApp } from '../test/angularApp.ts';

const usage = `usage: npm run example:angular -- [--port N] [--pods N] [--rate N] [--seed N] [--duration S] [--http1 | --cert F --key F]
  --port      port of the page on 127.0.0.1 (default 8080; 0 = any free port)
  --pods      pods created at start (default 30)
  --rate      churn: creates, updates, deletes and recreates per second, and as many phase changes (default 2; 0 = none)
  --seed      seed of the simulator and the churn (default 1)
  --duration  stop after S seconds (default: run until Ctrl-C)
${TLS_USAGE}`;

const PHASES = ['Pending', 'Running', 'Running', 'Running', 'Succeeded', 'Failed'];

async function main(): Promise<void> {
  const o = exampleOptions(process.argv.slice(2), usage);
  if (o === 'help') {
    console.log(usage);
    return;
  }
  const app = await buildAngularApp(undefined, (line) => console.log(line));
  const { tls, notes } = await exampleTls(o);
  const example = await startBrowserExample({
    tls,
    port: o.port,
    pods: o.pods,
    ratePerSecond: o.rate,
    seed: o.seed,
    page: { root: app.liveRoot },
  });
  // The load generator's pods all run: move some through the other phases too.
  let n = o.seed;
  const phases =
    o.rate > 0
      ? setInterval(() => {
          const pods = example.sim.storage.list('pods') as (KubeObject & { status?: { phase?: string } })[];
          const pod = pods[(n = (n * 1103515245 + 12345) % 2 ** 31) % Math.max(pods.length, 1)];
          if (!pod?.metadata?.name) return;
          const status = { ...pod.status, phase: PHASES[n % PHASES.length] };
          example.sim.storage.update('pods', { ...pod, status }, pod.metadata.namespace, pod.metadata.name, { subresource: 'status' });
        }, 1000 / o.rate)
      : undefined;
  console.log(`Angular example: open ${example.url}`);
  for (const line of notes) console.log(line);
  console.log(`  the app lists and watches pods through ${example.url}/api → simulator at ${example.sim.url}`);
  const fault = (name: string, body: string) =>
    `curl -XPOST ${example.sim.url}/_sim/faults/${name} -H 'Content-Type: application/json' -d '${body}'`;
  console.log(`  try: ${fault('dropWatches', '{}')}   (the app re-watches)`);
  console.log(`       ${fault('failNext', '{"count": 2, "code": 503, "on": "watch"}')}   (then a dropWatches: it backs off twice)`);
  runUntilStopped(
    () => example.close(),
    o.duration,
    () => clearInterval(phases),
  );
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e), 1));
