/**
 * What the example commands share (`npm run example:browser`, `npm run example:angular`): their
 * numeric options and running until Ctrl-C, SIGTERM or `--duration` seconds.
 */
import { parseArgs } from 'node:util';

/** The numeric options of an example command and their defaults; every one is `--name N`. */
export const EXAMPLE_DEFAULTS = { port: 8080, pods: 30, rate: 2, seed: 1, duration: Infinity };

/** An example command's options. */
export type ExampleOptions = Record<keyof typeof EXAMPLE_DEFAULTS, number>;

/** Prints `message` on stderr and ends the process with `code` (2: a bad command line). */
export function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

/**
 * The options of `argv`, or `help` for `-h`/`--help`; a bad one ends the process with the usage
 * and code 2.
 */
export function exampleOptions(argv: string[], usage: string): ExampleOptions | 'help' {
  const names = Object.keys(EXAMPLE_DEFAULTS) as (keyof ExampleOptions)[];
  const spec = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { ...spec, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (e) {
    fail(`${(e as Error).message}\n${usage}`);
  }
  if (values.help) return 'help';
  const out = { ...EXAMPLE_DEFAULTS };
  for (const name of names) {
    const text = values[name];
    if (typeof text !== 'string') continue;
    if (!/^\d+(\.\d+)?$/.test(text)) fail(`--${name} must be a non-negative number, got "${text}"\n${usage}`);
    out[name] = Number(text);
  }
  return out;
}

/**
 * Runs until SIGINT, SIGTERM or `durationS` seconds (when finite), then runs `cleanup`, awaits
 * `close()` and exits 0 (1 when closing failed).
 */
export function runUntilStopped(close: () => Promise<unknown>, durationS: number, cleanup: () => void = () => {}): void {
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${why}, shutting down`);
    cleanup();
    close().then(
      () => process.exit(0),
      (e: unknown) => fail(String(e), 1),
    );
  };
  process.on('SIGINT', () => stop('received SIGINT'));
  process.on('SIGTERM', () => stop('received SIGTERM'));
  if (Number.isFinite(durationS)) setTimeout(() => stop(`${durationS}s elapsed`), durationS * 1000);
}
