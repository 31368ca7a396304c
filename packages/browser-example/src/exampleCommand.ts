/**
 * What the example commands share (`npm run example:browser`, `npm run example:angular`): their
 * options (numbers, and HTTP/2 over TLS or `--http1`), the TLS they serve, and running until
 * Ctrl-C, SIGTERM or `--duration` seconds.
 */
import { parseArgs } from 'node:util';
import { devCertificate, loadCertificate, spkiHash, type TlsCredentials } from './devCertificate.ts';

/** The numeric options of an example command and their defaults; every one is `--name N`. */
export const EXAMPLE_DEFAULTS = { port: 8080, pods: 30, rate: 2, seed: 1, duration: Infinity };

/**
 * An example command's options: the numbers, and how the page is served: HTTP/2 over TLS with the
 * development certificate (the default), with `--cert FILE --key FILE`, or plain HTTP/1.1 (`--http1`).
 */
export type ExampleOptions = Record<keyof typeof EXAMPLE_DEFAULTS, number> & {
  /** Serve plain HTTP/1.1, no TLS. */
  http1: boolean;
  /** A certificate file (PEM) to serve instead of the development certificate; with `key`. */
  cert?: string;
  /** Its private key file (PEM). */
  key?: string;
};

/** The lines of an example command's usage about TLS (its other options are its own). */
export const TLS_USAGE = `  --http1     serve plain HTTP/1.1 (a browser then keeps 6 connections per origin: 5 live informers at most)
  --cert F    serve HTTPS with this certificate (PEM), with --key; default: the development certificate
  --key F     the certificate's private key (PEM)`;

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
  const names = Object.keys(EXAMPLE_DEFAULTS) as (keyof typeof EXAMPLE_DEFAULTS)[];
  const spec = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    const flags = {
      help: { type: 'boolean', short: 'h' },
      http1: { type: 'boolean' },
      cert: { type: 'string' },
      key: { type: 'string' },
    } as const;
    values = parseArgs({ args: argv, options: { ...spec, ...flags } }).values;
  } catch (e) {
    fail(`${(e as Error).message}\n${usage}`);
  }
  if (values.help) return 'help';
  const { cert, key } = values as { cert?: string; key?: string };
  if ((cert === undefined) !== (key === undefined)) fail(`--cert and --key go together\n${usage}`);
  if (values.http1 && cert !== undefined) fail(`--http1 serves no TLS: leave out --cert and --key\n${usage}`);
  const out: ExampleOptions = { ...EXAMPLE_DEFAULTS, http1: values.http1 === true, ...(cert !== undefined && { cert, key }) };
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

/** How an example command serves its page: the TLS credentials (none for `--http1`), and what to tell the developer. */
export interface ExampleTls {
  /** The credentials to serve, undefined for plain HTTP/1.1. */
  tls?: TlsCredentials;
  /** Lines to print under the URL: which certificate, how to trust it, the Chromium flag that accepts it. */
  notes: string[];
}

/**
 * The TLS of an example command's options: none with `--http1`, the files of `--cert`/`--key`, else
 * the development certificate (`devCertificate()`, made on first use), with how to trust it.
 * Ends the process with a one-line message when the files cannot be used.
 */
export async function exampleTls(o: ExampleOptions): Promise<ExampleTls> {
  if (o.http1) return { notes: ['  plain HTTP/1.1: a browser keeps 6 connections per origin, so informers past 5 stay `connecting`'] };
  if (o.cert !== undefined) {
    try {
      return { tls: await loadCertificate(o.cert, o.key!), notes: [`  HTTP/2 over TLS with ${o.cert}`] };
    } catch (e) {
      fail((e as Error).message, 1);
    }
  }
  const dev = await devCertificate();
  return {
    tls: dev,
    notes: [
      `  HTTP/2 over TLS, with a development certificate signed by the local CA ${dev.caFile}`,
      '  trust that CA once (packages/browser-example/README.md, "Certificates"), or start Chromium with',
      `    --ignore-certificate-errors-spki-list=${spkiHash(dev.cert)} --user-data-dir=$(mktemp -d)`,
      '  (or serve plain HTTP/1.1 with --http1)',
    ],
  };
}
