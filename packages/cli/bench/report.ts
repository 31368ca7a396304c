/**
 * The side-by-side report, pure: metrics from the contenders' outcomes, each goal checked as a
 * ratio, and the readable table (Markdown, so the terminal and docs/benchmarks.md show the same).
 */
import { figureOf, type Figure, type Outcome } from './rounds.ts';

/** Who is measured in each metric (client-go only where it ran: `--server real`). */
export type Contender = 'rxinformer' | 'clientNode' | 'limit' | 'clientGo' | 'clientGoProtobuf';

/** What rxinformer's figure is divided by in a goal: a contender, or a reference measured in the same run. */
export type Peer = 'clientNode' | 'limit' | 'bareCache' | 'clientGo';

/** A goal of a metric: rxinformer's figure divided by a peer's (or alone, `of: null`) within a bound. */
export interface GoalSpec {
  of: Peer | null;
  atMost?: number;
  atLeast?: number;
}

/** A goal as checked: the bound, the ratio measured (null when a figure is missing) and whether it holds. */
export interface GoalResult {
  atMost?: number;
  atLeast?: number;
  ratio: number | null;
  met: boolean | null;
}

/** One metric of `npm run bench -- --json`. */
export interface Metric {
  unit: string;
  better: 'lower' | 'higher';
  rxinformer: Figure;
  clientNode: Figure;
  limit: Figure;
  /** client-go with JSON, where it ran. */
  clientGo?: Figure;
  /** client-go with protobuf, where it ran. */
  clientGoProtobuf?: Figure;
  /** Goals keyed by the ratio they bound: `rxinformer/clientNode`, `rxinformer/limit`, `rxinformer/bareCache` or `rxinformer`. */
  goal?: Record<string, GoalResult>;
  /** Every round's value per contender (the figure is their median). */
  samples?: Partial<Record<Contender, number[]>>;
  /** Measured references that are not contenders (e.g. `bareCache`), by name; a goal may be set against one. */
  references?: Record<string, Reference>;
}

/** A reference figure measured in the same run as a metric's contenders. */
export interface Reference {
  /** What it measures, in a few words. */
  what: string;
  value: Figure;
  /** Every round's value (the figure is their median). */
  samples?: number[];
}

/** The whole JSON answer: the metrics and what describes the run. */
export interface BenchReport {
  metrics: Record<string, Metric>;
  [meta: string]: unknown;
}

/**
 * The goals per metric (issue 6; the watch's, against client-node and the bare cache, from the
 * informer's shape issue). `watchThroughput10kNoFreeze` is rxinformer with `freeze: false`.
 */
export const GOALS: Record<string, GoalSpec[]> = {
  initialSync10k: [
    { of: 'clientNode', atMost: 0.5 },
    { of: 'limit', atMost: 1.5 },
  ],
  watchThroughput10k: [
    { of: 'clientNode', atLeast: 0.85 },
    { of: 'bareCache', atLeast: 0.85 },
  ],
  watchThroughput10kNoFreeze: [
    { of: 'clientNode', atLeast: 1 },
    { of: 'bareCache', atLeast: 0.95 },
  ],
  heapPerObject: [{ of: 'clientNode', atMost: 1.1 }],
  heapPerObjectTransformed: [{ of: 'clientNode', atMost: 0.6 }],
  applyCost100kVs1k: [{ of: null, atMost: 1.5 }],
  // The metadata-only informer's heap against client-node's full objects; in `limit`, our full informer's.
  heapPerObjectMetadata: [{ of: 'clientNode', atMost: 0.15 }],
  // rxinformer with @rxinformer/prometheus wired; in `limit`, the same run's plain rxinformer.
  watchThroughputWithMetrics: [{ of: 'limit', atLeast: 0.97 }],
};

/**
 * The goals against client-go with JSON (issue 26), checked where client-go ran (the real server's
 * run) beside those of `GOALS`.
 */
export const CLIENT_GO_GOALS: Record<string, GoalSpec[]> = {
  initialSync10k: [{ of: 'clientGo', atMost: 1 }],
  watchThroughput10k: [{ of: 'clientGo', atLeast: 1 }],
  heapPerObject: [{ of: 'clientGo', atMost: 0.5 }],
};

const LABEL: Record<Contender | Peer, string> = {
  rxinformer: 'rxinformer',
  clientNode: 'client-node',
  limit: 'limit',
  bareCache: 'bare cache',
  clientGo: 'client-go (JSON)',
  clientGoProtobuf: 'client-go (protobuf)',
};

const CLIENT_GO: readonly Contender[] = ['clientGo', 'clientGoProtobuf'];

/** The key of a goal in `Metric.goal`. */
export function goalKey(spec: GoalSpec): string {
  return spec.of ? `rxinformer/${spec.of}` : 'rxinformer';
}

/** Checks one goal against a metric's figures (and references: a peer without a figure leaves it unmeasured). */
export function checkGoal(spec: GoalSpec, figures: Pick<Metric, Contender> & Partial<Record<Peer, Figure>>): GoalResult {
  const rx = figures.rxinformer;
  const peer = spec.of ? (figures[spec.of] ?? null) : 1;
  const ratio = typeof rx === 'number' && typeof peer === 'number' && peer !== 0 ? rx / peer : null;
  const met =
    ratio === null ? null : (spec.atMost === undefined || ratio <= spec.atMost) && (spec.atLeast === undefined || ratio >= spec.atLeast);
  return {
    ...(spec.atMost !== undefined ? { atMost: spec.atMost } : {}),
    ...(spec.atLeast !== undefined ? { atLeast: spec.atLeast } : {}),
    ratio,
    met,
  };
}

/**
 * Builds a metric from the contenders' outcomes; a contender without an outcome is `null`, a failed
 * one `{ error }` (client-go's figures are left out when it did not run). Goals come from
 * `GOALS[goalsOf]` (by default the metric's own name), and `CLIENT_GO_GOALS[goalsOf]` when client-go ran.
 *
 * @example
 * buildMetric('initialSync10k', 'ms', 'lower', { rxinformer: { median: 900, samples: [900] }, … });
 */
export function buildMetric(
  name: string,
  unit: string,
  better: 'lower' | 'higher',
  outcomes: Partial<Record<Contender, Outcome>>,
  goalsOf = name,
): Metric {
  const figure = (c: Contender): Figure => {
    const o = outcomes[c];
    if (!o) return null;
    return 'error' in o ? { error: o.error } : o.median;
  };
  const figures: Pick<Metric, Contender> = { rxinformer: figure('rxinformer'), clientNode: figure('clientNode'), limit: figure('limit') };
  for (const c of CLIENT_GO) if (outcomes[c]) figures[c] = figure(c);
  const metric: Metric = { unit, better, ...figures };
  const specs = [...(GOALS[goalsOf] ?? []), ...((outcomes.clientGo && CLIENT_GO_GOALS[goalsOf]) || [])];
  if (specs.length > 0) metric.goal = Object.fromEntries(specs.map((s) => [goalKey(s), checkGoal(s, figures)]));
  const samples: Partial<Record<Contender, number[]>> = {};
  for (const c of Object.keys(LABEL) as Contender[]) {
    const o = outcomes[c];
    if (o && 'samples' in o) samples[c] = o.samples;
  }
  if (Object.keys(samples).length > 0) metric.samples = samples;
  return metric;
}

/**
 * `metric` with the reference `name` added from its outcome, and its goals against that reference
 * (`rxinformer/<name>`) checked.
 *
 * @example
 * withReference(metric, 'bareCache', 'the limit plus a Map of the decoded objects', outcomes.bareCache);
 */
export function withReference(metric: Metric, name: string, what: string, outcome: Outcome | undefined): Metric {
  const value = figureOf(outcome);
  const reference: Reference = { what, value, ...(outcome && 'samples' in outcome ? { samples: outcome.samples } : {}) };
  const goal =
    metric.goal &&
    Object.fromEntries(
      Object.entries(metric.goal).map(([key, g]) =>
        key === `rxinformer/${name}`
          ? [key, checkGoal({ of: name as Peer, atMost: g.atMost, atLeast: g.atLeast }, { ...metric, [name]: value })]
          : [key, g],
      ),
    );
  return { ...metric, ...(goal && { goal }), references: { ...metric.references, [name]: reference } };
}

/**
 * One line per reference: its figure, its ratio to the limit, and rxinformer's ratio to it.
 *
 * @example
 * renderReferences(report.metrics); // ['- watchThroughput10k, bareCache (…): 22,066 events/s (…) = 0.63× the limit; rxinformer 0.86× of it']
 */
export function renderReferences(metrics: Record<string, Metric>): string[] {
  const lines: string[] = [];
  for (const [name, m] of Object.entries(metrics)) {
    for (const [refName, ref] of Object.entries(m.references ?? {})) {
      const ratio = (a: Figure, b: Figure): string =>
        typeof a === 'number' && typeof b === 'number' && b !== 0 ? (a / b).toFixed(2) : '?';
      const figure = formatFigure(ref.value, m.unit, ref.samples);
      const ofLimit = typeof m.limit === 'number' ? ` = ${ratio(ref.value, m.limit)}× the limit;` : ';';
      const tail = typeof ref.value === 'number' ? `${ofLimit} rxinformer ${ratio(m.rxinformer, ref.value)}× of it` : '';
      lines.push(`- ${name}, ${refName} (${ref.what}): ${figure} ${m.unit}${tail}`);
    }
  }
  return lines;
}

/** A number for people: ratios with 2 decimals, ms with 1 below 100, the rest whole with separators. */
export function formatNumber(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  if (unit === 'ratio') return value.toFixed(2);
  if (unit === 'ms' && Math.abs(value) < 100) return value.toFixed(1);
  return Math.round(value).toLocaleString('en-US');
}

/** A figure's cell: the median with the rounds' range, `failed: …`, or `–`. */
export function formatFigure(figure: Figure, unit: string, samples?: number[]): string {
  if (figure === null) return '–';
  if (typeof figure !== 'number') return `failed: ${figure.error.length > 80 ? `${figure.error.slice(0, 77)}...` : figure.error}`;
  const text = formatNumber(figure, unit);
  if (!samples || samples.length < 2) return text;
  return `${text} (${formatNumber(Math.min(...samples), unit)}–${formatNumber(Math.max(...samples), unit)})`;
}

/** A goal in words: `≤ 0.5× client-node`, `≥ 0.85× bare cache`, `≤ 1.5`. */
export function describeGoal(key: string, goal: GoalResult): string {
  const bound = goal.atMost !== undefined ? `≤ ${goal.atMost}` : `≥ ${goal.atLeast}`;
  const of = key.split('/')[1] as Peer | undefined;
  return of ? `${bound}× ${LABEL[of]}` : bound;
}

/** A checked goal's cell: the ratio and the verdict. */
export function formatVerdict(goal: GoalResult): string {
  if (goal.ratio === null || goal.met === null) return 'not measured';
  return `${formatRatio(goal.ratio, goal.atMost ?? goal.atLeast)} ${goal.met ? 'met' : '**NOT met**'}`;
}

/**
 * A ratio with 2 decimals, or with 3 when 2 would round it onto a bound it misses or just meets:
 * 0.9998 against `≥ 1` prints `0.999`, not `1.00`, so the figure agrees with the verdict.
 */
export function formatRatio(ratio: number, bound?: number): string {
  const two = ratio.toFixed(2);
  if (bound === undefined || Number(two) !== bound || ratio === bound) return two;
  // Truncated towards the bound's far side, so that the printed figure is on the side the verdict says.
  return (ratio < bound ? Math.floor(ratio * 1000) / 1000 : Math.ceil(ratio * 1000) / 1000).toFixed(3);
}

/**
 * The table: one row per goal (a metric's figures on its first row), Markdown.
 *
 * @example
 * console.log(renderTable(report.metrics));
 */
export function renderTable(metrics: Record<string, Metric>): string {
  const columns = tableColumns(metrics);
  const rows = [
    `| metric | unit | ${columns.map((c) => LABEL[c]).join(' | ')} | goal | ratio |`,
    `| --- | --- | ${columns.map(() => '---').join(' | ')} | --- | --- |`,
  ];
  for (const [name, m] of Object.entries(metrics)) {
    const cells = [name, `${m.unit} (${m.better} is better)`, ...columns.map((c) => formatFigure(m[c] ?? null, m.unit, m.samples?.[c]))];
    const goals = Object.entries(m.goal ?? {});
    if (goals.length === 0) rows.push(`| ${[...cells, '', ''].join(' | ')} |`);
    goals.forEach(([key, goal], i) => {
      const lead = i === 0 ? cells : cells.map(() => '');
      rows.push(`| ${[...lead, describeGoal(key, goal), formatVerdict(goal)].join(' | ')} |`);
    });
  }
  return rows.join('\n');
}

/** The contenders' columns: rxinformer, client-go's two when any metric has them, client-node, the limit. */
export function tableColumns(metrics: Record<string, Metric>): Contender[] {
  const ran = CLIENT_GO.filter((c) => Object.values(metrics).some((m) => m[c] !== undefined));
  return ['rxinformer', ...ran, 'clientNode', 'limit'];
}

/** How many goals hold, of how many. */
export function goalsMet(metrics: Record<string, Metric>): { met: number; total: number } {
  const all = Object.values(metrics).flatMap((m) => Object.values(m.goal ?? {}));
  return { met: all.filter((g) => g.met === true).length, total: all.length };
}
