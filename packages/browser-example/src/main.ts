#!/usr/bin/env node
/**
 * CLI: the browser example for a person.
 *
 *   npm run example:browser [-- --port 8080 --pods 30 --rate 2 --seed 1 --duration S] [--http1 | --cert F --key F]
 *
 * Starts the simulator with seeded pods and a churn, and the page server on 127.0.0.1 (HTTP/2 over
 * TLS with the development certificate, unless told otherwise), prints the URL and how to trust the
 * certificate, and runs until Ctrl-C / SIGTERM (or `--duration` seconds), then closes everything.
 */
import { startBrowserExample } from './browserExample.ts';
import { exampleOptions, exampleTls, fail, runUntilStopped, TLS_USAGE } from './exampleCommand.ts';

const usage = `usage: npm run example:browser -- [--port N] [--pods N] [--rate N] [--seed N] [--duration S] [--http1 | --cert F --key F]
  --port      port of the page on 127.0.0.1 (default 8080; 0 = any free port)
  --pods      pods created at start (default 30)
  --rate      churn: creates, updates, deletes and recreates per second (default 2; 0 = none)
  --seed      seed of the simulator and the churn (default 1)
  --duration  stop after S seconds (default: run until Ctrl-C)
${TLS_USAGE}
The page takes ?informers=N (N more informers in the tab) and ?pageSize=N.`;

async function main(): Promise<void> {
  const o = exampleOptions(process.argv.slice(2), usage);
  if (o === 'help') {
    console.log(usage);
    return;
  }
  const { tls, notes } = await exampleTls(o);
  let example;
  try {
    example = await startBrowserExample({ port: o.port, pods: o.pods, ratePerSecond: o.rate, seed: o.seed, tls });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${o.port} is in use: pass another with --port N, or --port 0 for any free port`, 1);
    throw e;
  }
  console.log(`browser example: open ${example.url}   (${example.url}/?informers=10: ten more informers in the tab)`);
  for (const line of notes) console.log(line);
  console.log(`  the page lists and watches pods through ${example.url}/api → simulator at ${example.sim.url}`);
  console.log(
    `  try: curl -XPOST ${example.sim.url}/_sim/faults/dropWatches -H 'Content-Type: application/json' -d '{}'   (the page re-watches)`,
  );
  runUntilStopped(() => example.close(), o.duration);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e), 1));
