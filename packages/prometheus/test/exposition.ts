/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), line by line: each line
 * must be a `# HELP`, a `# TYPE` or a sample of a declared family, else it throws naming the line.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition. */
export interface Exposition {
  /** Declared families: their type and help. */
  families: Map<string, { type: string; help?: string }>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (\\S+)(?: -?\\d+)?$`);
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|NaN|[+-]Inf)$/;
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/** Parses `text`; throws on the first line that is not in the format. */
export function parseExposition(text: string): Exposition {
  const families = new Map<string, { type: string; help?: string }>();
  const samples: Sample[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  lines.pop();
  lines.forEach((line, i) => {
    const fail = (why: string) => {
      throw new Error(`line ${i + 1} ${why}: ${line}`);
    };
    if (line.startsWith('# HELP ')) {
      const m = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line) ?? fail('is a malformed HELP');
      families.set(m![1], { ...(families.get(m![1]) ?? { type: 'untyped' }), help: m![2] });
      return;
    }
    if (line.startsWith('# TYPE ')) {
      const m = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line) ?? fail('is a malformed TYPE');
      families.set(m![1], { ...families.get(m![1]), type: m![2] });
      return;
    }
    if (line.startsWith('#') || line === '') return;
    const m = SAMPLE.exec(line) ?? fail('is not a sample');
    const [, name, labelText, valueText] = m!;
    if (!VALUE.test(valueText)) fail('has a malformed value');
    const family = [...families].find(([f, { type }]) => (SUFFIXES[type] ?? ['']).some((s) => f + s === name));
    if (family === undefined) fail(`samples ${name}, whose family has no TYPE line before it`);
    const labels: Record<string, string> = {};
    for (const l of (labelText ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"/g))
      labels[l[1]] = l[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name, labels, value: Number(valueText.replace('Inf', 'Infinity')) });
  });
  return { families, samples };
}

/** The value of the one sample of `name` whose labels include `labels`; throws when there is none or several. */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0].value;
}

/** Whether any sample of `name` with `labels` is there. */
export function hasSample(e: Exposition, name: string, labels: Record<string, string> = {}): boolean {
  return e.samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
