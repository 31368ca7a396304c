/**
 * Pure rendering of the live view: the full screen for a terminal, and for plain output the
 * kubectl-get-w style event lines, the periodic counters line, list progress and the summary.
 * Every function returns plain text lines, never escape codes.
 */
import type { HandlerMetrics, ReflectorStatus } from '@rxinformer/core';
import { formatAge, formatDuration, formatTable, statusOf, truncate, type Column } from './liveFormat.ts';
import type { LiveCounts, LiveEvent } from './liveState.ts';

/** Everything the counters show, at one instant. */
export interface LiveSnapshot {
  /** What is watched, e.g. `pods in all namespaces (app=web)`. */
  title: string;
  /** Where from, e.g. `simulator http://127.0.0.1:40123` or `cluster prod (https://…)`. */
  source: string;
  /** Objects in the informer's store. */
  cached: number;
  eventsPerSecond: number;
  counts: LiveCounts;
  status: ReflectorStatus;
  /** Reflector failures seen so far (each distinct `lastError`). */
  errors: number;
  handlers: { name: string; metrics: HandlerMetrics }[];
  /** A line under the title, e.g. how to point kubectl at the simulator. Default: none. */
  note?: string;
  /** The last fault the simulator injected, if any. */
  lastFault?: string;
  /** Time since the view started, in ms. */
  uptimeMs: number;
}

/** The table columns, on screen and in event lines. */
const COLUMNS: Column[] = [
  { title: 'NAMESPACE', max: 20, min: 9 },
  { title: 'NAME', max: 40, min: 12 },
  { title: 'STATUS', max: 16 },
  { title: 'AGE', max: 8 },
  { title: 'LAST EVENT', max: 24, min: 10 },
];

const nameOf = (e: LiveEvent) => e.object.metadata?.name ?? e.key;
const namespaceOf = (e: LiveEvent) => e.object.metadata?.namespace ?? '';
const statusCell = (e: LiveEvent) => (e.type === 'DELETED' || e.type === 'DELETED?' ? '<deleted>' : statusOf(e.object));

/** The table cells of an event's object: namespace, name, status, age, last event with how long ago. */
export function eventCells(e: LiveEvent, nowMs: number, wallNowMs: number): string[] {
  return [
    namespaceOf(e),
    nameOf(e),
    statusCell(e),
    formatAge(e.object.metadata?.creationTimestamp, wallNowMs),
    `${e.type} ${formatDuration(Math.max(0, nowMs - e.at))} ago`,
  ];
}

/** The header of plain event lines. */
export const EVENT_HEADER = 'EVENT      NAMESPACE            NAME                                      STATUS        AGE';

/**
 * One plain event line, kubectl `get -w --output-watch-events` style: type, namespace, name, status, age.
 *
 * @example
 * eventLine(e, Date.now()) // 'MODIFIED   default              web-000012                                Running       3m'
 */
export function eventLine(e: LiveEvent, wallNowMs: number): string {
  const cell = (text: string, width: number) => truncate(text, width).padEnd(width);
  return `${cell(e.type, 9)}  ${cell(namespaceOf(e), 19)}  ${cell(nameOf(e), 40)}  ${cell(statusCell(e), 12)}  ${formatAge(e.object.metadata?.creationTimestamp, wallNowMs)}`;
}

/** `initial list: 3 pages, 1500 objects so far…` while a list runs; undefined otherwise. */
export function progressText(status: ReflectorStatus): string | undefined {
  const p = status.listProgress;
  if (status.phase !== 'listing' || !p) return undefined;
  const what = status.relistCount > 0 ? `relist #${status.relistCount}` : 'initial list';
  return p.pages === 0 ? `${what}: loading…` : `${what}: ${p.pages} page${p.pages === 1 ? '' : 's'}, ${p.items} objects so far…`;
}

/** The reflector's phase, with the backoff delay and the last error when there is one. */
export function reflectorText(status: ReflectorStatus): string {
  const backoff = status.phase === 'backingOff' && status.backoffMs !== undefined ? ` (retry in ${formatDuration(status.backoffMs)})` : '';
  const error = status.lastError ? `, last error: ${status.lastError.name}: ${status.lastError.message}` : '';
  return `${status.phase}${backoff}${error}`;
}

/** Per-handler figures: `view lag=2ms depth=0 delivered=120 errors=0`. */
export function handlerText(h: { name: string; metrics: HandlerMetrics }): string {
  const m = h.metrics;
  return `${h.name} lag=${formatDuration(m.lagMs)} depth=${m.depth} delivered=${m.delivered} errors=${m.errors}`;
}

/** The counters as one plain line (non-TTY output, every interval). */
export function countersLine(s: LiveSnapshot): string {
  const c = s.counts;
  return truncate(
    [
      `[${formatDuration(s.uptimeMs)}] cached=${s.cached}`,
      `events/s=${s.eventsPerSecond.toFixed(1)}`,
      `added=${c.ADDED} modified=${c.MODIFIED} deleted=${c.DELETED + c['DELETED?']}`,
      `relists=${s.status.relistCount} errors=${s.errors}`,
      `reflector=${reflectorText(s.status)}`,
      ...s.handlers.map((h) => `handler ${handlerText(h)}`),
    ].join(' | '),
    1000,
  );
}

/**
 * The whole terminal screen: a title, the counters, then as many table rows (newest event first)
 * as fit in `size.rows`, every line at most `size.columns` wide.
 */
export function renderScreen(
  s: LiveSnapshot,
  rows: readonly LiveEvent[],
  size: { rows: number; columns: number },
  nowMs: number,
  wallNowMs: number,
): string[] {
  const width = Math.max(1, size.columns);
  const c = s.counts;
  const head = [
    `rxinformer live: ${s.title} — ${s.source}   (Ctrl-C to quit)`,
    ...(s.note ? [s.note] : []),
    `cached ${s.cached}   events/s ${s.eventsPerSecond.toFixed(1)}   relists ${s.status.relistCount}   errors ${s.errors}   up ${formatDuration(s.uptimeMs)}`,
    `events: added ${c.ADDED}  modified ${c.MODIFIED}  deleted ${c.DELETED}  tombstones ${c['DELETED?']}`,
    `reflector ${reflectorText(s.status)}`,
    ...s.handlers.map((h) => `handler ${handlerText(h)}`),
    ...(s.lastFault ? [`last fault injected: ${s.lastFault}`] : []),
    ...(progressText(s.status) ? [progressText(s.status)!] : []),
    '',
  ].map((l) => truncate(l, width));
  const room = Math.max(0, size.rows - head.length - 1); // the table header takes one line
  const shown = rows.slice(0, room);
  const table = formatTable(
    COLUMNS,
    shown.map((e) => eventCells(e, nowMs, wallNowMs)),
    width,
  );
  const lines = [...head, ...table];
  return lines.slice(0, Math.max(1, size.rows));
}

/** What `--duration` and a shutdown print. */
export interface LiveSummary {
  durationMs: number;
  cached: number;
  counts: LiveCounts;
  relists: number;
  errors: number;
  errorNames: string[];
  handlerErrors: number;
  faults: number;
}

/** The summary, a few plain lines. */
export function summaryLines(s: LiveSummary): string[] {
  const c = s.counts;
  return [
    `summary: ran ${formatDuration(s.durationMs)}, ${s.cached} objects cached`,
    `events: ADDED=${c.ADDED} MODIFIED=${c.MODIFIED} DELETED=${c.DELETED} DELETED(final state unknown)=${c['DELETED?']} unchanged-on-relist=${c.unchanged}`,
    `relists=${s.relists} reflector errors=${s.errors}${s.errorNames.length ? ` (${s.errorNames.join(', ')})` : ''} handler errors=${s.handlerErrors}${s.faults ? ` faults injected=${s.faults}` : ''}`,
  ];
}
