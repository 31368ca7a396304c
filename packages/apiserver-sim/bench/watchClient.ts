/**
 * The benchmark's watcher, run as its own process (as an informer would be). It opens one watch
 * and, on the raw bytes (no string decoding):
 *
 * - reads every byte and splits every line at `\n`, counting lines;
 * - checks that every line starts with `{"type":"MODIFIED"` (the only event the bench produces);
 * - every `SAMPLE`-th line (default 100, and the last one) is decoded and `JSON.parse`d in full:
 *   its type must be MODIFIED, it must carry an object, and the resourceVersions of the sampled
 *   lines must strictly increase.
 *
 * So the figure measures what the server delivers, not what one client's `JSON.parse` of every
 * line can take (its cost per pod line is in docs/benchmarks.md). It reports on stdout: `ready`
 * once streaming, `done <n> <cpuMs> <parsed> <ms>` after `n` events (`ms` since the response
 * began), `ended …` if the stream ends first, or `invalid <reason>` if a check fails.
 *
 *   node watchClient.ts <watch URL> <count> [sample]
 */
import { request } from 'node:http';

const [url, countText, sampleText] = process.argv.slice(2);
const want = Number(countText);
const SAMPLE = Number(sampleText ?? 100);
const PREFIX = Buffer.from('{"type":"MODIFIED"');
let received = 0;
let parsed = 0;
let lastRv = -1;
let finished = false;
/** When the response began (the stream's own duration is measured from here). */
let t0 = performance.now();

const finish = (word: string) => {
  if (finished) return;
  finished = true;
  const cpu = process.cpuUsage();
  const ms = Math.round(performance.now() - t0);
  process.stdout.write(`${word} ${received} ${Math.round((cpu.user + cpu.system) / 1000)} ${parsed} ${ms}\n`, () => process.exit(0));
};

const fail = (reason: string) => {
  if (finished) return;
  finished = true;
  process.stdout.write(`invalid ${reason}\n`, () => process.exit(0));
};

/** Checks one complete line (`buf[start, end)`, without its newline). */
function line(buf: Buffer, start: number, end: number): void {
  received += 1;
  if (end - start < PREFIX.length || buf.compare(PREFIX, 0, PREFIX.length, start, start + PREFIX.length) !== 0) {
    fail(`line ${received} is not a MODIFIED event: ${buf.toString('utf8', start, Math.min(end, start + 80))}`);
    return;
  }
  if (received % SAMPLE !== 0 && received !== want) return;
  parsed += 1;
  const ev = JSON.parse(buf.toString('utf8', start, end)) as { type: string; object?: { metadata?: { resourceVersion?: string } } };
  const rv = Number(ev.object?.metadata?.resourceVersion);
  if (ev.type !== 'MODIFIED' || !Number.isInteger(rv)) fail(`line ${received}: no MODIFIED object with a resourceVersion`);
  else if (rv <= lastRv) fail(`line ${received}: resourceVersion ${rv} after ${lastRv}`);
  lastRv = rv;
}

const req = request(url, { agent: false }, (res) => {
  t0 = performance.now();
  process.stdout.write('ready\n');
  let carry: Buffer | undefined;
  res.on('data', (chunk: Buffer) => {
    if (finished) return;
    let start = 0;
    let i = chunk.indexOf(10);
    if (carry !== undefined && i >= 0) {
      // the line that began in an earlier chunk
      const whole = Buffer.concat([carry, chunk.subarray(0, i)]);
      carry = undefined;
      line(whole, 0, whole.length);
      start = i + 1;
      i = chunk.indexOf(10, start);
    }
    while (i >= 0 && !finished) {
      line(chunk, start, i);
      start = i + 1;
      i = chunk.indexOf(10, start);
    }
    if (start < chunk.length)
      carry = carry === undefined ? Buffer.from(chunk.subarray(start)) : Buffer.concat([carry, chunk.subarray(start)]);
    if (received >= want) finish('done');
  });
  res.on('end', () => finish('ended'));
  res.on('aborted', () => finish('ended'));
});
req.on('error', () => finish('ended'));
req.end();
