/**
 * The metric families of one kind (workqueue, informer, leader election) in one prom-client
 * registry: made at the first request, reused by every later one, each series fed by one source
 * named by a label value.
 */
import type { Registry } from 'prom-client';
import { InvalidOptionsError } from '@rxinformer/core';
import { MetricConflictError } from './errors.ts';

/** The families of one kind in one registry, and the sources feeding them by label value. */
export interface MetricSet<M, S> {
  /** The families, made once. */
  readonly metrics: M;
  /** The sources, by the label value that names them. */
  readonly sources: Map<string, S>;
  /** The metrics as the registry held them when made, in the order of their names. */
  readonly registered: readonly unknown[];
}

const made = new WeakMap<Registry, Map<string, MetricSet<unknown, unknown>>>();

/**
 * The set of `kind` in `registry`, made with `make` unless already there. Throws
 * `MetricConflictError` when the registry holds a metric of one of its names that this package did
 * not make (prom-client would throw later, after registering the others).
 */
export function metricSet<M, S>(
  registry: Registry,
  kind: string,
  make: (sources: Map<string, S>) => M,
  names: readonly string[],
): MetricSet<M, S> {
  let byKind = made.get(registry);
  if (byKind === undefined) made.set(registry, (byKind = new Map<string, MetricSet<unknown, unknown>>()));
  const existing = byKind.get(kind) as MetricSet<M, S> | undefined;
  const held = (set: MetricSet<M, S>, i: number) => registry.getSingleMetric(names[i]) === set.registered[i];
  if (existing !== undefined && names.every((_, i) => held(existing, i))) return existing;
  // Made before and since removed from the registry (`clear()`, `removeSingleMetric`): made anew.
  if (existing !== undefined) names.forEach((name, i) => held(existing, i) && registry.removeSingleMetric(name));
  for (const name of names) {
    if (registry.getSingleMetric(name) !== undefined)
      throw new MetricConflictError(
        'MetricConflict',
        name,
        `the registry already holds a metric named ${name} that @rxinformer/prometheus did not make: use another registry, or remove it first`,
      );
  }
  const sources = new Map<string, S>();
  let metrics: M;
  try {
    metrics = make(sources);
  } catch (e) {
    throw new MetricConflictError('MetricConflict', names[0] ?? kind, `the ${kind} metrics could not be registered: ${String(e)}`, {
      cause: e,
    });
  }
  const set: MetricSet<M, S> = { metrics, sources, registered: names.map((name) => registry.getSingleMetric(name)) };
  byKind.set(kind, set as MetricSet<unknown, unknown>);
  return set;
}

/**
 * Adds `source` under `label`; returns the function that removes it. Throws `MetricConflictError`
 * (`DuplicateSource`) when another source already feeds that label value.
 */
export function addSource<S>(set: MetricSet<unknown, S>, label: string, labelName: string, metric: string, source: S): () => void {
  if (typeof label !== 'string' || label === '')
    throw new InvalidOptionsError(`${labelName} must be a non-empty string, got ${String(label)}`);
  if (set.sources.has(label))
    throw new MetricConflictError(
      'DuplicateSource',
      metric,
      `${metric}{${labelName}="${label}"} is already fed by another source in this registry: give each a name of its own, or unregister the first`,
    );
  set.sources.set(label, source);
  return () => {
    if (set.sources.get(label) === source) set.sources.delete(label);
  };
}
