/**
 * Health and readiness, framework-free: `/readyz` passes once every informer has synced (and every
 * check of your own passes: leading, say); `/healthz` fails when an informer's list or watch has been
 * failing, or silent, past a threshold. Render them with `probeResponse`, or serve them with
 * `probeHandler` / `serveProbes`.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import { InformerTracker, reasonOf, type ObservedInformer } from './informerTracker.ts';

/** A check of your own: true / false, or an outcome with a message. */
export type ProbeCheck = () =>
  | boolean
  | {
      /** Passed or not. */
      ok: boolean;
      /** Why it failed. */
      message?: string;
    };

/** One check's outcome. */
export interface CheckOutcome {
  /** The check's name, e.g. `informer v1/pods`. */
  name: string;
  /** Passed or not. */
  ok: boolean;
  /** Why it failed (or a note when it passed). */
  message?: string;
}

/** A probe's outcome: passed when every check passed. */
export interface ProbeReport {
  /** True when every check passed. */
  ok: boolean;
  /** Each check, informers first, in the order they were added. */
  checks: readonly CheckOutcome[];
}

/** Options of `createProbes`. */
export interface ProbesOptions {
  /** The informers to judge, by name (more with `addInformer`). Default: none. */
  informers?: Record<string, ObservedInformer>;
  /** Informer factories by name: ready once every informer each made has synced (`factory.hasSynced()`). Default: none. */
  factories?: Record<
    string,
    {
      /** True once every informer the factory made has synced. */
      hasSynced(): boolean;
    }
  >;
  /** Readiness checks of your own by name, e.g. `{ leading: () => isLeader }`. Default: none. */
  readyChecks?: Record<string, ProbeCheck>;
  /** Health checks of your own by name. Default: none. */
  healthChecks?: Record<string, ProbeCheck>;
  /**
   * An informer whose lists or watches have kept failing (backing off, no progress) this long fails
   * `/healthz`. Default 300,000 (5 min): ten of the reflector's longest backoffs, so a liveness
   * probe restarts a process that cannot recover, not one riding out an API server restart. A
   * number > 0 of any length (it is compared with the informers' clock, no timer is armed), or
   * `Infinity` to turn it off; 0, NaN and negative values throw `InvalidOptionsError`.
   */
  failingAfterMs?: number;
  /**
   * A synced informer whose resource version has not moved (no event, no bookmark, no list) this long
   * fails `/healthz`. Default 600,000 (10 min): API servers send a bookmark about every minute to a
   * watch that asks for them (the reflector does). `Infinity` turns it off (a server without bookmarks).
   * Any length > 0, as `failingAfterMs`.
   */
  silentAfterMs?: number;
  /** The informers' clock (their `scheduler`). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** Health and readiness of a set of informers. */
export interface Probes {
  /** Readiness: every informer and factory synced, every ready check passing. Nothing to check: ready. */
  readyz(): ProbeReport;
  /** Health: no informer failing or silent past its threshold, every health check passing. */
  healthz(): ProbeReport;
  /** Judges one more informer under `name` (unique); returns the function that removes it. */
  addInformer(name: string, informer: ObservedInformer): () => void;
  /** Stops following the informers. */
  close(): void;
}

/**
 * Creates the probes.
 *
 * @example
 * const probes = createProbes({ informers: { 'v1/pods': podInformer }, readyChecks: { leading: () => leading } });
 * probes.readyz().ok; // false until pods synced and this process leads
 */
export function createProbes(options: ProbesOptions = {}): Probes {
  const failingAfterMs = threshold(options.failingAfterMs, 300_000, 'failingAfterMs');
  const silentAfterMs = threshold(options.silentAfterMs, 600_000, 'silentAfterMs');
  const scheduler = options.scheduler ?? asyncScheduler;
  const trackers = new Map<string, InformerTracker>();
  const addInformer = (name: string, informer: ObservedInformer): (() => void) => {
    if (typeof name !== 'string' || name === '') throw new InvalidOptionsError('an informer of the probes needs a name');
    if (trackers.has(name)) throw new InvalidOptionsError(`the probes already judge an informer named ${name}`);
    InformerTracker.check(informer, `the probes' informer ${name}`);
    const tracker = new InformerTracker(informer, scheduler);
    trackers.set(name, tracker);
    return () => {
      if (trackers.get(name) !== tracker) return;
      tracker.close();
      trackers.delete(name);
    };
  };
  for (const [name, informer] of Object.entries(options.informers ?? {})) addInformer(name, informer);
  const own = (checks: Record<string, ProbeCheck> | undefined): CheckOutcome[] =>
    Object.entries(checks ?? {}).map(([name, check]) => runCheck(name, check));
  const report = (checks: CheckOutcome[]): ProbeReport => ({ ok: checks.every((c) => c.ok), checks });
  return {
    readyz: () =>
      report([
        ...[...trackers].map(([name, t]) =>
          t.informer.hasSynced() ? { name: `informer ${name}`, ok: true } : { name: `informer ${name}`, ok: false, message: 'not synced' },
        ),
        ...Object.entries(options.factories ?? {}).map(([name, f]) =>
          runCheck(`factory ${name}`, () => f.hasSynced() || { ok: false, message: 'not synced' }),
        ),
        ...own(options.readyChecks),
      ]),
    healthz: () =>
      report([
        ...[...trackers].map(([name, t]) => judge(`informer ${name}`, t, failingAfterMs, silentAfterMs)),
        ...own(options.healthChecks),
      ]),
    addInformer,
    close: () => {
      for (const t of trackers.values()) t.close();
      trackers.clear();
    },
  };
}

/** The health of one informer. */
function judge(name: string, t: InformerTracker, failingAfterMs: number, silentAfterMs: number): CheckOutcome {
  const h = t.health();
  if (h.failingForMs !== undefined && h.failingForMs >= failingAfterMs) {
    const cause = h.lastError ? `: ${reasonOf(h.lastError)}: ${h.lastError.message}` : '';
    return { name, ok: false, message: `failing for ${seconds(h.failingForMs)}${cause}` };
  }
  if (h.synced && h.phase !== 'stopped' && h.silentForMs !== undefined && h.silentForMs >= silentAfterMs)
    return { name, ok: false, message: `no event, bookmark or list for ${seconds(h.silentForMs)}` };
  return { name, ok: true };
}

function runCheck(name: string, check: ProbeCheck): CheckOutcome {
  try {
    const r = check();
    if (typeof r === 'boolean') return r ? { name, ok: true } : { name, ok: false, message: 'check failed' };
    return { name, ok: r?.ok === true, ...(r?.message !== undefined && { message: r.message }) };
  } catch (e) {
    return { name, ok: false, message: `check threw: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function threshold(value: number | undefined, fallback: number, field: string): number {
  return checkDuration(field, value, fallback, { exclusive: true, infinite: true }); // compared with a clock, no timer: any length
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
