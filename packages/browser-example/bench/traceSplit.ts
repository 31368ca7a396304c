/**
 * A Chromium trace of a bench page's main thread over its window (CDP `Tracing`, the DevTools
 * timeline's categories): where its time goes, by kind of work. Each trace event's self time (its
 * duration minus its children's) on the renderer's main thread, summed by the event's name, so
 * that message dispatch, script, garbage collection, style, layout and paint add up to the
 * thread's busy time.
 */
import type { CDPSession } from 'playwright-core';

/** One kind of work's self time over the window. */
export interface TraceTime {
  /** The trace event's name (`FunctionCall`, `MinorGC`, `Layout`…), with the DOM event's type for `EventDispatch`. */
  name: string;
  /** Self time in ms. */
  ms: number;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { type?: string } };
}

const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.gc',
  'blink',
  'toplevel',
];

/** The kinds of work the split reports, each a test of a trace event's name; the first that matches wins. */
const KINDS: readonly [kind: string, test: RegExp][] = [
  ['garbage collection', /GC|[Mm]arking|Sweep|Scavenge|Compact/],
  ['message receipt', /mojo|SimpleWatcher|MessagePort|deserialize|EventDispatch message/],
  ['script', /FunctionCall|v8\.|V8\.Execute|Microtask|TimerFire|TimerBase|AsyncTask|FireAnimationFrame|FrameCallbacks|EvaluateScript/],
  ['rendering', /Commit|Paint|Layout|Layer|Style|Lifecycle|BeginMainFrame|Animat|CullRect|Blink\./],
];

/**
 * `times` summed by kind of work (garbage collection, message receipt and deserialisation,
 * script, rendering; the rest, mostly the scheduler's own task overhead, as `other`), most first.
 *
 * @example
 * byKind(await stop()); // [{ name: 'script', ms: 681 }, { name: 'garbage collection', ms: 376 }, …]
 */
export function byKind(times: readonly TraceTime[]): TraceTime[] {
  const sums = new Map<string, number>();
  for (const { name, ms } of times) {
    const kind = KINDS.find(([, test]) => test.test(name))?.[0] ?? 'other';
    sums.set(kind, (sums.get(kind) ?? 0) + ms);
  }
  return [...sums].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

/** Starts tracing; the result stops and returns the main thread's self time by kind of work, then by event name, most first. */
export async function startTrace(cdp: CDPSession): Promise<(top?: number) => Promise<TraceTime[]>> {
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: CATEGORIES }, transferMode: 'ReportEvents' });
  return async (top = 25) => {
    const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await done;
    const times = traceSelfTimes(events);
    return [...byKind(times).map(({ name, ms }) => ({ name: `= ${name}`, ms })), ...times.slice(0, top)];
  };
}

/** Self time by event name of the complete (`X`) and begin/end (`B`/`E`) events of the page's main thread. */
export function traceSelfTimes(events: readonly TraceEvent[]): TraceTime[] {
  // The page's renderer main thread: CrRendererMain of the process that ran FunctionCalls most.
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const calls = new Map<string, number>();
  for (const e of events)
    if (e.name === 'FunctionCall' && mains.has(`${e.pid}:${e.tid}`))
      calls.set(`${e.pid}:${e.tid}`, (calls.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const main = [...calls].sort((a, b) => b[1] - a[1])[0]?.[0];
  const spans: { name: string; start: number; end: number }[] = [];
  const open: TraceEvent[] = [];
  for (const e of events) {
    if (`${e.pid}:${e.tid}` !== main) continue;
    const name = e.name === 'EventDispatch' && e.args?.data?.type ? `EventDispatch ${e.args.data.type}` : e.name;
    if (e.ph === 'X' && e.dur !== undefined) spans.push({ name, start: e.ts, end: e.ts + e.dur });
    else if (e.ph === 'B') open.push({ ...e, name });
    else if (e.ph === 'E') {
      const b = open.pop();
      if (b) spans.push({ name: b.name, start: b.ts, end: e.ts });
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const self = new Map<string, number>();
  const stack: { name: string; end: number; child: number }[] = [];
  const close = (until: number) => {
    while (stack.length > 0 && stack.at(-1)!.end <= until) {
      const s = stack.pop()!;
      self.set(s.name, (self.get(s.name) ?? 0) - s.child);
    }
  };
  for (const s of spans) {
    close(s.start);
    const d = s.end - s.start;
    self.set(s.name, (self.get(s.name) ?? 0) + d);
    if (stack.length > 0) stack.at(-1)!.child += d;
    stack.push({ name: s.name, end: s.end, child: 0 });
  }
  close(Infinity);
  return [...self].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
}
