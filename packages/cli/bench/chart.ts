/**
 * The bar chart of docs/benchmarks.svg, pure: one bar per goal showing the measured ratio, a dashed
 * line at the goal's bound, green when the goal is met and red when not. Hand-written SVG, no fonts
 * or scripts beyond what every browser and GitHub render.
 */
import { describeGoal, formatRatio, type Metric } from './report.ts';

/** Options of `renderChart`. */
export interface ChartOptions {
  /** The title. Default `rxinformer side by side: measured ratio vs goal`. */
  title?: string;
  /** A line under the title, e.g. the date and machine load. Default: none. */
  subtitle?: string;
  /** Largest ratio drawn; longer bars are cut with an arrow. Default 4. */
  maxRatio?: number;
}

const WIDTH = 820;
const LABEL_WIDTH = 330;
const ROW = 30;
const TOP = 58;
const PLOT = WIDTH - LABEL_WIDTH - 60;

/** Escapes text for SVG. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/**
 * Renders every goal of `metrics` as a bar of its ratio against its bound.
 *
 * @example
 * writeFileSync('docs/benchmarks.svg', renderChart(report.metrics, { subtitle: '2026-11-23, load 2.4' }));
 *
 * Caveat: a goal whose ratio could not be measured gets a row saying so and no bar.
 */
export function renderChart(metrics: Record<string, Metric>, options: ChartOptions = {}): string {
  const goals = Object.entries(metrics).flatMap(([name, m]) => Object.entries(m.goal ?? {}).map(([key, goal]) => ({ name, key, goal })));
  const bounds = goals.flatMap(({ goal }) => [goal.ratio ?? 0, goal.atMost ?? goal.atLeast ?? 0]);
  const scaleMax = Math.min(options.maxRatio ?? 4, Math.max(2, ...bounds) * 1.1);
  const x = (ratio: number) => LABEL_WIDTH + (Math.min(ratio, scaleMax) / scaleMax) * PLOT;
  const height = TOP + goals.length * ROW + 40;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">${escapeXml(options.title ?? 'rxinformer side by side: measured ratio vs goal')}</text>`,
  ];
  if (options.subtitle) out.push(`<text x="10" y="38" fill="#555555">${escapeXml(options.subtitle)}</text>`);
  // Axis ticks every 0.5.
  for (let t = 0; t <= scaleMax + 1e-9; t += 0.5) {
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${TOP - 6}" x2="${x(t).toFixed(1)}" y2="${TOP + goals.length * ROW}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x(t).toFixed(1)}" y="${TOP + goals.length * ROW + 16}" text-anchor="middle" fill="#555555">${t}×</text>`);
  }
  goals.forEach(({ name, key, goal }, i) => {
    const y = TOP + i * ROW;
    out.push(`<text x="10" y="${y + 18}">${escapeXml(`${name}: ${describeGoal(key, goal)}`)}</text>`);
    if (goal.ratio === null) {
      out.push(`<text x="${LABEL_WIDTH + 4}" y="${y + 18}" fill="#888888">not measured</text>`);
    } else {
      const colour = goal.met ? '#2e9d4a' : '#d23c3c';
      const end = x(goal.ratio);
      out.push(`<rect x="${LABEL_WIDTH}" y="${y + 6}" width="${(end - LABEL_WIDTH).toFixed(1)}" height="${ROW - 12}" fill="${colour}"/>`);
      if (goal.ratio > scaleMax) out.push(`<text x="${end + 2}" y="${y + 19}" fill="${colour}">▶</text>`);
      // The value right of both the bar and the bound's line, so neither hides it.
      const labelX = Math.max(end + (goal.ratio > scaleMax ? 16 : 4), x(goal.atMost ?? goal.atLeast ?? 0) + 6);
      out.push(
        `<text x="${labelX.toFixed(1)}" y="${y + 19}">${formatRatio(goal.ratio, goal.atMost ?? goal.atLeast)}${goal.met ? '' : ' (not met)'}</text>`,
      );
    }
    const bound = goal.atMost ?? goal.atLeast ?? 0;
    out.push(
      `<line x1="${x(bound).toFixed(1)}" y1="${y + 2}" x2="${x(bound).toFixed(1)}" y2="${y + ROW - 2}" stroke="#222222" stroke-width="2" stroke-dasharray="4 3"/>`,
    );
  });
  out.push(
    `<text x="10" y="${height - 8}" fill="#555555">bars: rxinformer's figure ÷ the peer's (or alone); dashed line: the goal's bound</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
