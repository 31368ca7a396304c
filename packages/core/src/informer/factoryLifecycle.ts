/**
 * When an informer factory runs: while `start()` holds it (until `stop()`), or while any
 * `retain()` is unreleased, and for a grace period after the last release, so that a view that
 * unmounts and mounts again at once (React's StrictMode, a route change) keeps its watches open
 * instead of stopping and relisting.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleAfter } from '../time/longTimer.ts';

/** What the lifecycle turns on and off. */
export interface LifecycleTarget {
  /** Starts every informer (the factory begins to run). */
  run(): void;
  /** Stops every informer (the factory stops running; caches and handlers stay). */
  halt(): void;
}

/** The factory's run state: `start()`, `stop()` and `retain()` as holds. */
export interface FactoryLifecycle {
  /** `start()`: holds the factory running until `unhold()` (`stop()`). Idempotent. */
  hold(): void;
  /** `stop()`: drops `start()`'s hold; the factory stops at once unless a `retain()` still holds it. */
  unhold(): void;
  /** `retain()`: one more holder; returns its release (idempotent). */
  retain(): () => void;
  /** True while the informers run. */
  running(): boolean;
  /** `shutdown()`: forgets every hold and cancels a pending stop; nothing runs after it. */
  close(): void;
}

/** Default grace, in ms, between the last `retain()`'s release and the factory's stop. */
export const DEFAULT_RELEASE_GRACE_MS = 5_000;

/**
 * The lifecycle of a factory: runs `target` while something holds it. The last release of a
 * `retain()` (with no `start()` hold) stops it after `graceMs` on `scheduler` (at once for 0); a
 * `retain()` within the grace cancels the stop, so the watches stay open and nothing relists.
 */
export function factoryLifecycle(target: LifecycleTarget, graceMs: number, scheduler: SchedulerLike): FactoryLifecycle {
  let held = false;
  let leases = 0;
  let isRunning = false;
  let closed = false;
  let grace: Subscription | undefined;

  const cancelGrace = (): void => {
    grace?.unsubscribe();
    grace = undefined;
  };
  /** Runs or halts the target as the holds say. */
  const settle = (): void => {
    const wanted = !closed && (held || leases > 0 || grace !== undefined);
    if (wanted === isRunning) return;
    isRunning = wanted;
    if (wanted) target.run();
    else target.halt();
  };
  const lastReleased = (): void => {
    if (held || leases > 0) return;
    if (graceMs > 0) {
      // Any length: a grace past a JavaScript timer's 24.8 days would otherwise end at once.
      grace = scheduleAfter(scheduler, graceMs, () => {
        grace = undefined;
        settle();
      });
    }
    settle();
  };

  return {
    hold: () => {
      if (closed || held) return;
      held = true;
      cancelGrace();
      settle();
    },
    unhold: () => {
      if (!held) return;
      held = false;
      cancelGrace(); // an explicit stop does not wait for a grace
      settle();
    },
    retain: () => {
      leases++;
      cancelGrace();
      settle();
      let released = false;
      return () => {
        if (released || closed) return;
        released = true;
        leases--;
        lastReleased();
      };
    },
    running: () => isRunning,
    close: () => {
      closed = true;
      cancelGrace();
      isRunning = false;
    },
  };
}
