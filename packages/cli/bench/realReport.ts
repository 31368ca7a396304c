/**
 * The real server's figures of `npm run bench -- --server real` as a Markdown table, pure.
 */
import type { RealServerFigures } from './realBench.ts';
import type { EnvironmentRss } from './serverRss.ts';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (kib: number | undefined) => (kib === undefined || !Number.isFinite(kib) ? '?' : `${int(kib / 1024)} MiB`);

/** `kube-apiserver 412 MiB, etcd 35 MiB` (resident now), with the peaks when asked. */
function memory(rss: EnvironmentRss, peak = false): string {
  const one = (p: EnvironmentRss['apiServer']) => `${mib(p?.rssKiB)}${peak ? ` (peak ${mib(p?.peakKiB)})` : ''}`;
  return `kube-apiserver ${one(rss.apiServer)}, etcd ${one(rss.etcd)}`;
}

/**
 * The figures as a two-column Markdown table.
 *
 * @example
 * console.log(renderServerFigures(result.server));
 */
export function renderServerFigures(s: RealServerFigures): string {
  const rows: [string, string][] = [
    ['server', `kube-apiserver ${s.version}, etcd from @rxinformer/envtest`],
    ['start (etcd + kube-apiserver ready), first in this process', `${int(s.startMs.first)} ms`],
    ['start again (twice)', s.startMs.again.map((ms) => `${int(ms)} ms`).join(', ')],
    [`kube-apiserver killed and ready again, ${int(s.seeding.pods)} pods in etcd`, `${int(s.restartMs)} ms`],
    [
      `${int(s.seeding.pods)} pods created through the API (create + status, 16 in flight)`,
      `${int(s.seeding.ms)} ms, ${int(s.seeding.writesPerSecond)} writes/s`,
    ],
    [
      `${int(s.updates.count)} updates recorded (GET + PUT, 16 in flight)`,
      `${int(s.updates.ms)} ms, ${int(s.updates.perSecond)} updates/s`,
    ],
    ['resident memory just started (no pods)', memory(s.rss.started)],
    [`resident memory with ${int(s.seeding.pods)} pods`, memory(s.rss.seeded)],
    ['resident memory at the end (peak since its start)', memory(s.rss.end, true)],
  ];
  return ['| real server | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
}
