/**
 * What the bench measures inside a page, beside Chromium's own account (CDP): how late a 10 ms
 * interval timer runs (the worst stall a user feels as a frozen page), the Long Tasks API's tasks
 * over 50 ms, and the worst gap between animation frames. `reset()` starts a measuring window.
 */

/** The probe's figures since the last `reset()`. */
export interface ProbeFigures {
  /** The worst lateness of the 10 ms interval timer, in ms (its gap between two runs, minus 10). */
  worstStallMs: number;
  /** Runs of the interval timer. */
  ticks: number;
  /** Long tasks (over 50 ms) seen by the Long Tasks API, and their summed duration in ms. */
  longTasks: number;
  longTaskMs: number;
  /** The worst gap between two animation frames, in ms (none in a hidden page). */
  worstFrameGapMs: number;
  /** Animation frames run. */
  frames: number;
}

/** A running probe. */
export interface Probe {
  reset(): void;
  read(): ProbeFigures;
}

const TICK_MS = 10;

/** Starts the probe: an interval timer, a long-task observer and an animation-frame loop, all running until the page goes. */
export function startProbe(): Probe {
  const fresh = (): ProbeFigures => ({ worstStallMs: 0, ticks: 0, longTasks: 0, longTaskMs: 0, worstFrameGapMs: 0, frames: 0 });
  let figures = fresh();
  let lastTick = performance.now();
  let lastFrame: number | undefined;
  setInterval(() => {
    const now = performance.now();
    figures.worstStallMs = Math.max(figures.worstStallMs, now - lastTick - TICK_MS);
    figures.ticks++;
    lastTick = now;
  }, TICK_MS);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      figures.longTasks++;
      figures.longTaskMs += entry.duration;
    }
  }).observe({ type: 'longtask', buffered: false });
  const frame = (now: number) => {
    if (lastFrame !== undefined) figures.worstFrameGapMs = Math.max(figures.worstFrameGapMs, now - lastFrame);
    figures.frames++;
    lastFrame = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  return {
    reset: () => {
      figures = fresh();
      lastTick = performance.now();
      lastFrame = undefined;
    },
    read: () => ({ ...figures }),
  };
}
