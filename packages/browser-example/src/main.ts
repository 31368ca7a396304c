#!/usr/bin/env node
/**
 * CLI: the browser example for a person.
 *
 *   npm run example:browser [-- --port 8080 --pods 30 --rate 2 --seed 1 --duration S]
 *
 * Starts the simulator with seeded pods and a churn, and the page server on 127.0.0.1, prints the
 * URL, and runs until Ctrl-C / SIGTERM (or `--duration` seconds), then closes everything.
 */
import { parseArgs } from 'node:util';
import { startBrowserExample } from './browserExample.ts';

const usage = `usage: npm run example:browser -- [--port N] [--pods N] [--rate N] [--seed N] [--duration S]
  --port      port of the page on 127.0.0.1 (default 8080; 0 = any free port)
  --pods      pods created at start (default 30)
  --rate      churn: creates, updates, deletes and recreates per second (default 2; 0 = none)
  --seed      seed of the simulator and the churn (default 1)
  --duration  stop after S seconds (default: run until Ctrl-C)`;

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

/** The numeric options and their defaults; every one is `--name N`. */
const DEFAULTS = { port: 8080, pods: 30, rate: 2, seed: 1, duration: Infinity };
type Options = Record<keyof typeof DEFAULTS, number>;

/** The options of `argv`, or `help`; a bad one ends the process with the usage and code 2. */
function options(argv: string[]): Options | 'help' {
  const names = Object.keys(DEFAULTS) as (keyof Options)[];
  const spec = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { ...spec, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (e) {
    fail(`${(e as Error).message}\n${usage}`);
  }
  if (values.help) return 'help';
  const out = { ...DEFAULTS };
  for (const name of names) {
    const text = values[name];
    if (typeof text !== 'string') continue;
    if (!/^\d+(\.\d+)?$/.test(text)) fail(`--${name} must be a non-negative number, got "${text}"\n${usage}`);
    out[name] = Number(text);
  }
  return out;
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  if (o === 'help') {
    console.log(usage);
    return;
  }
  let example;
  try {
    example = await startBrowserExample({ port: o.port, pods: o.pods, ratePerSecond: o.rate, seed: o.seed });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${o.port} is in use: pass another with --port N, or --port 0 for any free port`, 1);
    throw e;
  }
  console.log(`browser example: open ${example.url}`);
  console.log(`  the page lists and watches pods through ${example.url}/api → simulator at ${example.sim.url}`);
  console.log(
    `  try: curl -XPOST ${example.sim.url}/_sim/faults/dropWatches -H 'Content-Type: application/json' -d '{}'   (the page re-watches)`,
  );
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${why}, shutting down`);
    example.close().then(
      () => process.exit(0),
      (e: unknown) => fail(String(e), 1),
    );
  };
  process.on('SIGINT', () => stop('received SIGINT'));
  process.on('SIGTERM', () => stop('received SIGTERM'));
  if (Number.isFinite(o.duration)) setTimeout(() => stop(`${o.duration}s elapsed`), o.duration * 1000);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e), 1));
