/**
 * The benchmark's watcher, run as its own process (as an informer would be): opens one watch,
 * parses every line, and reports on stdout: `ready` once streaming, `done <n>` after `n` MODIFIED
 * events, or `ended <n>` if the server ends the stream first.
 *
 *   node watchClient.ts <watch URL> <count>
 */
import { request } from 'node:http';

const [url, countText] = process.argv.slice(2);
const want = Number(countText);
let received = 0;
let finished = false;
const finish = (word: string) => {
  if (finished) return;
  finished = true;
  const cpu = process.cpuUsage();
  process.stdout.write(`${word} ${received} ${Math.round((cpu.user + cpu.system) / 1000)}\n`, () => process.exit(0));
};
const req = request(url, { agent: false }, (res) => {
  process.stdout.write('ready\n');
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buf += chunk;
    let start = 0;
    let i: number;
    while ((i = buf.indexOf('\n', start)) >= 0) {
      const ev = JSON.parse(buf.slice(start, i)) as { type: string };
      if (ev.type === 'MODIFIED') received += 1;
      start = i + 1;
    }
    buf = buf.slice(start);
    if (received >= want) finish('done');
  });
  res.on('end', () => finish('ended'));
  res.on('aborted', () => finish('ended'));
});
req.on('error', () => finish('ended'));
req.end();
