/**
 * A soak's fault schedule, whatever the server: faults of some kinds placed in time from a seed, each
 * in its own slot of the chaos phase, as a list of timed actions run in order on an RxJS scheduler.
 * `faultPlan.ts` gives the simulator's kinds and steps, `realFaultPlan.ts` a real API server's.
 */
import { asyncScheduler, concatMap, defer, from, map, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import { seededRandom } from '@rxinformer/apiserver-sim';

/** One step of a schedule: at `atMs` after the start, run `step` of `fault` on the server `C`. */
export interface FaultAction<C, K extends string = string> {
  atMs: number;
  fault: K;
  /** What the step does, e.g. `latency on` or `latency off`. */
  step: string;
  /**
   * Applies the step (a promise for a step that takes time, e.g. a restart); returns how many open
   * watches it hit, for steps aimed at watches, or, for the step that ends a fault's slot
   * (`endsSlot`), how many of its parts were never used.
   */
  run(server: C): number | void | Promise<number | void>;
  /** The last step of a fault that waits for requests or watches: drops what is still waiting. */
  endsSlot?: boolean;
}

/**
 * An applied action and the open watches it hit (0: none open; `undefined` for steps not aimed at
 * watches); for the step ending a slot, `unused`: the failures and watch faults that found no
 * request or watch within the slot, dropped so they never leak into the next one.
 */
export interface AppliedFault<C = unknown> {
  action: FaultAction<C>;
  watchesHit?: number;
  unused?: number;
}

/** What `scheduleFaults` needs beyond the kinds. */
export interface ScheduleOptions {
  /** Seed of every choice (order, times, extra faults). */
  seed: number;
  /** Length of the chaos phase in ms; every action falls inside it. */
  durationMs: number;
  /** Faults injected on top of one of each kind, picked by the seed. Default 3. */
  extra?: number;
}

/**
 * Plans one of each of `kinds` plus `extra` more, in a seeded order, each at a seeded time inside
 * its own slot of the chaos phase (`units(kind)` slots' worth: longer for faults that last), its
 * steps from `stepsOf(kind, at, lastMs)` ending within 70% of the slot. The same options give the
 * same plan.
 *
 * @example
 * scheduleFaults(['cut', 'latency'], (k) => (k === 'latency' ? 3 : 1), stepsOf, { seed: 7, durationMs: 10_000 });
 */
export function scheduleFaults<C, K extends string>(
  kinds: readonly K[],
  units: (kind: K) => number,
  stepsOf: (kind: K, at: number, lastMs: number) => FaultAction<C, K>[],
  options: ScheduleOptions,
): FaultAction<C, K>[] {
  const rng = seededRandom(options.seed ^ 0x5eed);
  const extra = options.extra ?? 3;
  const planned: K[] = [...kinds];
  for (let i = 0; i < extra; i++) planned.push(kinds[rng.int(kinds.length)]);
  for (let i = planned.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [planned[i], planned[j]] = [planned[j], planned[i]];
  }
  const unitMs = options.durationMs / planned.reduce((n, k) => n + units(k), 0);
  let start = 0;
  return planned.flatMap((kind) => {
    const slot = units(kind) * unitMs;
    const at = Math.round(start + rng.next() * slot * 0.2);
    start += slot;
    return stepsOf(kind, at, Math.max(1, Math.round(slot * 0.7)));
  });
}

/**
 * Runs a plan against `server` on `scheduler`, in plan order, each action at its time after
 * subscription (no drift; an action that takes time delays the ones due meanwhile, which then run
 * at once); emits each action once applied and completes after the last. Unsubscribing stops the
 * remaining actions. A step that fails is reported as the Observable's error.
 */
export function runFaultPlan<C>(
  server: C,
  plan: readonly FaultAction<C>[],
  scheduler: SchedulerLike = asyncScheduler,
): Observable<AppliedFault<C>> {
  const sorted = [...plan].sort((a, b) => a.atMs - b.atMs);
  const applied = (action: FaultAction<C>, hit: number | void): AppliedFault<C> => {
    if (action.endsSlot) return { action, unused: typeof hit === 'number' ? hit : 0 };
    return typeof hit === 'number' ? { action, watchesHit: hit } : { action };
  };
  return defer(() => {
    const start = scheduler.now();
    return from(sorted).pipe(
      concatMap((action) =>
        timer(Math.max(0, start + action.atMs - scheduler.now()), scheduler).pipe(
          concatMap(() => {
            const hit = action.run(server);
            return hit instanceof Promise ? from(hit) : of(hit);
          }),
          map((hit) => applied(action, hit)),
        ),
      ),
    );
  });
}
