/**
 * The browser bench's table (Markdown, as docs/benchmarks.md shows it) and its goals: with the
 * informers in a worker, at most 50 ms worst stall and 30 ms/s busy on the main thread; a React
 * page at most 60 commits per second in a burst.
 */
import type { BenchOptions, PageSummary, Stat } from './runBench.ts';

/** A goal: the figure of the pages it applies to, and its bound. */
interface Goal {
  what: string;
  applies: (page: string) => boolean;
  figure: (s: PageSummary) => Stat | undefined;
  max: number;
  unit: string;
}

/** A design with its informers in a worker (the floor pages measure a limit, not a design: no goal). */
const inWorker = (page: string) => (page.startsWith('worker') || page.startsWith('shared')) && !page.includes('floor');

export const GOALS: readonly Goal[] = [
  { what: 'worst stall, informers in a worker', applies: inWorker, figure: (s) => s.worstStallMs, max: 50, unit: 'ms' },
  {
    what: 'main thread busy over the page without informers, informers in a worker',
    applies: inWorker,
    figure: (s) => s.addedBusyMsPerS,
    max: 30,
    unit: 'ms/s',
  },
  {
    what: 'main thread CPU over the page without informers, informers in a worker',
    applies: inWorker,
    figure: (s) => s.addedCpuMsPerS,
    max: 30,
    unit: 'ms/s',
  },
  {
    what: 'React commits per second in a burst',
    applies: (page) => page.startsWith('react'),
    figure: (s) => s.burstCommitsPerS,
    max: 60,
    unit: '/s',
  },
];

const n = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `median (min–max)`, or `–`. */
export function cell(s: Stat | undefined, digits = 0): string {
  if (!s) return '–';
  return s.min === s.max ? n(s.median, digits) : `${n(s.median, digits)} (${n(s.min, digits)}–${n(s.max, digits)})`;
}

/** The goals met and missed, one line each. */
export function goalLines(results: readonly PageSummary[]): string[] {
  const lines: string[] = [];
  for (const goal of GOALS)
    for (const page of results.filter((r) => goal.applies(r.name))) {
      const s = goal.figure(page);
      const verdict = s === undefined ? 'not measured' : s.median <= goal.max ? 'met' : '**NOT met**';
      lines.push(`- ${goal.what} ≤ ${goal.max} ${goal.unit}: ${page.name} ${cell(s, 1)} ${goal.unit}, ${verdict}`);
    }
  return lines;
}

/** Prints the results as a Markdown table, then the goals and any failed rounds. */
export function printTable(
  results: readonly PageSummary[],
  meta: { started: string; seconds: number; pods: number; nodes: number },
  options: BenchOptions,
): void {
  const t = options.timing;
  console.log(
    `${meta.started}, ${meta.seconds} s: ${meta.nodes} nodes, ${meta.pods} pods at the end; ${options.rounds} rounds, ` +
      `${t.warmupMs / 1000} s warm-up, ${t.windowMs / 1000} s window; burst ${t.burst.count} updates at ${t.burst.perSecond}/s measured to ${t.burst.tailMs} ms after the last\n`,
  );
  console.log(
    '| page | synced in (ms) | main thread busy (ms/s) | over baseline (ms/s) | main thread CPU (ms/s) | over baseline (ms/s) | worst stall (ms) | long tasks (ms/s) | worst frame gap (ms) | heap per object (bytes) | objects held | relists | commits/s in burst | busy in burst (ms/s) | worst stall in burst (ms) |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const held = r.held ? `${n(r.held.pods)} + ${n(r.held.nodes)}` : '–';
    const heap = r.name === 'none' ? '(baseline)' : cell(r.heapPerObject);
    console.log(
      `| ${r.name} | ${cell(r.syncMs)} | ${cell(r.busyMsPerS, 1)} | ${r.name === 'none' ? '–' : cell(r.addedBusyMsPerS, 1)} | ${cell(r.cpuMsPerS, 1)} | ${r.name === 'none' ? '–' : cell(r.addedCpuMsPerS, 1)} | ${cell(r.worstStallMs)} | ${cell(r.longTaskMsPerS, 1)} | ${cell(r.worstFrameGapMs)} | ${heap} | ${held} | ${cell(r.relists)} | ` +
        `${cell(r.burstCommitsPerS, 1)} | ${cell(r.burstBusyMsPerS, 1)} | ${cell(r.burstWorstStallMs)} |`,
    );
  }
  console.log('');
  for (const line of goalLines(results)) console.log(line);
  for (const r of results)
    r.rounds.forEach((round, i) => {
      if ('error' in round) console.log(`- ${r.name}, round ${i + 1} failed: ${round.error}`);
    });
}
