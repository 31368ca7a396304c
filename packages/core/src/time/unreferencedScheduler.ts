/**
 * A scheduler for timers that guard other work and must not keep a Node process alive by
 * themselves: a connection's idle close and health check, a simulator's bookmarks. Its timers are
 * unreferenced Node timers (in a browser, plain timers: nothing there to keep alive).
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/** One scheduled piece of work: rescheduling re-arms its timer, unsubscribing clears it. */
class UnreferencedAction<T> extends Subscription implements SchedulerAction<T> {
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #work: (this: SchedulerAction<T>, state?: T) => void;

  constructor(work: (this: SchedulerAction<T>, state?: T) => void) {
    super();
    this.#work = work;
    this.add(() => this.#clear());
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.#clear();
    const timer = setTimeout(() => this.#run(state), delay);
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
    return this;
  }

  #run(state: T | undefined): void {
    this.#timer = undefined;
    try {
      this.#work.call(this, state);
    } catch (error) {
      this.unsubscribe();
      throw error;
    }
    // Done unless the work scheduled itself again (as an RxJS async action ends).
    if (this.#timer === undefined) this.unsubscribe();
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * An RxJS scheduler on the wall clock whose timers do not keep a Node process alive: a program
 * whose other work has ended exits instead of waiting for them. For timers that only guard I/O
 * (the I/O itself holds the process while it is open), never for work that must run.
 *
 * @example
 * // unreferencedScheduler comes from @rxinformer/core/time
 * // closes an idle connection after 90 s, yet lets the process exit before that
 * const idle = unreferencedScheduler.schedule(() => session.close(), 90_000);
 *
 * Caveat: delays as in `setTimeout` (at most 2³¹−1 ms; use `scheduleAfter` for longer ones).
 */
export const unreferencedScheduler: SchedulerLike = {
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new UnreferencedAction(work).schedule(state, delay);
  },
};
