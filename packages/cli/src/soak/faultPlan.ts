/**
 * The soak's faults on the simulator: every fault it supports, placed in time from a seed
 * (`faultSchedule.ts`). Faults that last (latency, 401, 403, latency during a relist) get longer
 * slots, so one never ends another early.
 */
import type { ApiServer } from '@rxinformer/apiserver-sim';
import { scheduleFaults, type FaultAction as ScheduledAction, type ScheduleOptions } from './faultSchedule.ts';

/** Every kind of fault a soak run injects into the simulator. */
export const FAULT_KINDS = [
  'dropAllWatches',
  'dropOneWatch',
  'watchError410',
  'compact',
  'compactDuringList',
  'fail500',
  'fail503',
  'fail429',
  'failWatch504',
  'latency',
  'stallWatches',
  'malformedLine',
  'restart',
  'unauthorized401',
  'forbidden403',
] as const;

/** One kind of the simulator's faults. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Faults that last a while; they get three time units of the chaos phase, the others one. */
const LASTING: ReadonlySet<FaultKind> = new Set(['compactDuringList', 'latency', 'unauthorized401', 'forbidden403']);

/** One step of the simulator's schedule. */
export type FaultAction = ScheduledAction<ApiServer, FaultKind>;

/** Options of `planFaults`. */
export interface FaultPlanOptions extends ScheduleOptions {
  /** The bearer token clients hold; 401 phases rotate it away and back. */
  token: string;
  /** The resource the 403 phases forbid. Default `pods`. */
  resource?: string;
}

/** A watch fault: aimed at the open watches, or, when none is open (the client is between watches), at the next one. */
function atWatch(fault: (target: 'all' | 'one' | 'next') => number, target: 'all' | 'one' = 'all'): number {
  const hit = fault(target);
  if (hit === 0) fault('next');
  return hit;
}

/** The step builders of one fault whose slot starts at `at` and that may last up to `lastMs`. */
function slotOf(kind: FaultKind, at: number, lastMs: number) {
  const one = (step: string, run: (sim: ApiServer) => number | void, offset = 0): FaultAction => ({
    atMs: at + offset,
    fault: kind,
    step,
    run,
  });
  // What waits for a request or a watch belongs to its slot: dropped (and counted) at its end.
  const end = (): FaultAction => ({
    ...one(
      'end of slot: drop what waits unused',
      (s) => {
        const { failures, watchFaults } = s.faults.clearPending();
        return failures + watchFaults;
      },
      lastMs,
    ),
    endsSlot: true,
  });
  return {
    one,
    end,
    /** One step aimed at watches (`atWatch`), then the end of the slot. */
    aimed: (step: string, fault: (s: ApiServer) => (target: 'all' | 'one' | 'next') => number, target: 'all' | 'one' = 'all') => [
      one(step, (s) => atWatch(fault(s), target)),
      end(),
    ],
    /**
     * A failure waits for the next request, and an open watch makes none: the watches are dropped
     * so the reconnects meet it (and consume it, so failures do not pile up); then the end of the slot.
     */
    failing: (step: string, fail: (sim: ApiServer) => void): FaultAction[] => [
      one(`${step}, drop watches`, (s) => {
        fail(s);
        return s.faults.dropWatches('all');
      }),
      end(),
    ],
  };
}

/** The steps of one fault that starts at `at` and may last up to `lastMs`. */
function stepsOf(kind: FaultKind, at: number, lastMs: number, options: FaultPlanOptions): FaultAction[] {
  const { one, end, aimed, failing } = slotOf(kind, at, lastMs);
  const resource = options.resource ?? 'pods';
  switch (kind) {
    case 'dropAllWatches':
      return aimed('drop all watches', (s) => (t) => s.faults.dropWatches(t));
    case 'dropOneWatch':
      return aimed('drop one watch', (s) => (t) => s.faults.dropWatches(t), 'one');
    case 'watchError410':
      return aimed('ERROR 410 on every watch', (s) => (t) => s.faults.injectWatchError(undefined, t));
    case 'stallWatches':
      return aimed('stall every watch', (s) => (t) => s.faults.stallWatches(t));
    case 'malformedLine':
      return aimed('malformed line on every watch', (s) => (t) => s.faults.malformedLine(t));
    case 'compact':
      return [one('compact', (s) => s.faults.compact())];
    case 'compactDuringList':
      return [
        // Slow responses, then a 410 forces a relist; compacting every 200 ms while its pages are in
        // flight expires its continue token (the relist must start again from scratch).
        one('latency 100±50 ms on, ERROR 410', (s) => {
          s.faults.latency(100, 50);
          return atWatch((t) => s.faults.injectWatchError(undefined, t));
        }),
        ...Array.from({ length: Math.max(1, Math.floor(lastMs / 200) - 1) }, (_, i) =>
          one('compact during the relist', (s) => s.faults.compact(), 150 + i * 200),
        ),
        one('latency off', (s) => s.faults.latency(0), lastMs),
        end(),
      ];
    case 'fail500':
      return failing('next 2 requests 500', (s) => s.faults.failNext(2, { code: 500 }));
    case 'fail503':
      return failing('next request 503 + Retry-After 1', (s) => s.faults.failNext(1, { code: 503, retryAfterSeconds: 1 }));
    case 'fail429':
      return failing('next request 429 + Retry-After 1', (s) => s.faults.failNext(1, { code: 429, retryAfterSeconds: 1 }));
    case 'failWatch504':
      return failing('next watch 504', (s) => s.faults.failNext(1, { code: 504, on: 'watch' }));
    case 'latency':
      return [one('latency 150±100 ms on', (s) => s.faults.latency(150, 100)), one('latency off', (s) => s.faults.latency(0), lastMs)];
    case 'restart':
      return [one('restart', (s) => s.faults.restart())];
    case 'unauthorized401':
      return [
        // Open watches were authorized when they started: drop them so the reconnects meet the new token.
        one('rotate the token (401), drop watches', (s) => {
          s.faults.setAuth({ token: `${options.token}-rotated` });
          return s.faults.dropWatches('all');
        }),
        one('restore the token', (s) => s.faults.setAuth({ token: options.token }), lastMs),
      ];
    case 'forbidden403':
      return [
        one(`forbid ${resource} (403), drop watches`, (s) => {
          s.faults.forbid(resource);
          return s.faults.dropWatches('all');
        }),
        one(`allow ${resource}`, (s) => s.faults.allow(resource), lastMs),
      ];
  }
}

/**
 * Plans the faults of one run: one of each kind plus `extra` more, in a seeded order, each at a
 * seeded time inside its own slot of the chaos phase (lasting faults get slots three times as
 * long, and end within them). The same options give the same plan.
 *
 * @example
 * const plan = planFaults({ seed: 7, durationMs: 10_000, token: 'soak' });
 * runFaultPlan(sim, plan).subscribe((a) => console.log(a.atMs, a.step));
 */
export function planFaults(options: FaultPlanOptions): FaultAction[] {
  return scheduleFaults(
    FAULT_KINDS,
    (kind) => (LASTING.has(kind) ? 3 : 1),
    (kind, at, lastMs) => stepsOf(kind, at, lastMs, options),
    options,
  );
}

/** Ends every fault: failures, latency and pending watch faults cleared, the original token and no denial. */
export function clearFaults(sim: ApiServer, token: string): void {
  sim.faults.reset();
  sim.faults.setAuth({ token });
}
