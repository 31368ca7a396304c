/**
 * Metrics whose values are read at scrape time (prom-client's `collect`): a gauge or a counter set
 * from the rows of label values and numbers that a function returns then.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The series of a metric now: label values and a number each (rows without a number are left out). */
export type Rows = Iterable<readonly [Record<string, string>, number | undefined]>;

/** What a collected metric is made of. */
export interface CollectedConfig {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: Registry[];
}

/** A gauge set, at each scrape, to the rows `rows()` returns. */
export function collectedGauge(config: CollectedConfig, rows: () => Rows): Gauge {
  return new Gauge({
    ...config,
    labelNames: [...config.labelNames],
    collect(this: Gauge) {
      this.reset();
      for (const [labels, value] of rows()) if (value !== undefined) this.set(labels, value);
    },
  });
}

/** A counter set, at each scrape, to the totals `rows()` returns (each source keeps its own count). */
export function collectedCounter(config: CollectedConfig, rows: () => Rows): Counter {
  return new Counter({
    ...config,
    labelNames: [...config.labelNames],
    collect(this: Counter) {
      this.reset();
      for (const [labels, value] of rows()) if (value !== undefined) this.inc(labels, value);
    },
  });
}

/** One row per source, labelled `label` with the source's name, and `read` of the source now. */
export function rowsOf<S>(sources: ReadonlyMap<string, S>, label: string, read: (s: S) => number | undefined): () => Rows {
  return function* () {
    for (const [name, s] of sources) yield [{ [label]: name }, read(s)];
  };
}

/** `fn`, run on the first call only: an idempotent `unregister`. */
export function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
