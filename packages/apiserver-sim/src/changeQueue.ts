/**
 * The load generator's queue of changes: a change the target makes synchronously (the simulator's
 * object store) is made at once; one that answers with a promise (a server over HTTP) runs with at
 * most `concurrency` others in flight, and the changes of one slot (one pod name) run one after
 * the other, in the order they were submitted.
 */

/** A value, or a promise of it: what a `ChurnTarget` call may return. */
export type MaybePromise<T> = T | PromiseLike<T>;

/** True when `value` is a promise (anything with a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `f(value)` at once for a plain value, or once it resolves for a promise (then a promise of `f`'s answer). */
export function andThen<T>(value: MaybePromise<T>, f: (v: T) => unknown): unknown {
  return isThenable(value) ? Promise.resolve(value).then(f) : f(value);
}

/** The queue the load generator submits its changes to. */
export interface ChangeQueue {
  /** Runs `change` of `slot` now, or once a place in flight and the slot's earlier changes are done. */
  submit(slot: number, change: () => unknown): void;
  /** Changes submitted and not started yet. */
  readonly backlog: number;
  /** Changes started and not finished (promises not settled yet). */
  readonly inFlight: number;
  /** Changes of `slot` submitted and not finished. */
  pending(slot: number): number;
  /** Resolves once nothing waits and nothing is in flight. */
  settled(): Promise<void>;
}

interface Job {
  slot: number;
  change: () => unknown;
}

/**
 * Creates a change queue. `onFailure(slot, error)` is called for a change that throws or rejects;
 * what it returns (a promise, e.g. reading the slot back) is waited for before the slot's next change.
 *
 * @example
 * const queue = createChangeQueue(16, (slot, error) => console.error(slot, error));
 * queue.submit(3, () => fetch(url, { method: 'DELETE' }));
 * await queue.settled();
 */
export function createChangeQueue(concurrency: number, onFailure: (slot: number, error: unknown) => unknown): ChangeQueue {
  const waiting: Job[] = [];
  const busy = new Set<number>();
  const pendingBySlot = new Map<number, number>();
  let inFlight = 0;
  let idle: (() => void)[] = [];

  const finish = (slot: number) => {
    const left = (pendingBySlot.get(slot) ?? 1) - 1;
    if (left > 0) pendingBySlot.set(slot, left);
    else pendingBySlot.delete(slot);
  };
  const run = (job: Job): unknown => {
    try {
      const result = job.change();
      return isThenable(result) ? Promise.resolve(result).catch((e: unknown) => onFailure(job.slot, e)) : result;
    } catch (e) {
      return onFailure(job.slot, e);
    }
  };
  const start = (job: Job) => {
    const result = run(job);
    if (!isThenable(result)) {
      finish(job.slot);
      return;
    }
    inFlight++;
    busy.add(job.slot);
    void Promise.resolve(result)
      .catch(() => undefined) // onFailure's own failure: nothing more to do for this change
      .then(() => {
        inFlight--;
        busy.delete(job.slot);
        finish(job.slot);
        pump();
      });
  };
  const pump = () => {
    for (let i = 0; i < waiting.length && inFlight < concurrency;) {
      if (busy.has(waiting[i].slot)) {
        i++;
        continue;
      }
      start(waiting.splice(i, 1)[0]);
    }
    if (waiting.length === 0 && inFlight === 0 && idle.length > 0) {
      const resolve = idle;
      idle = [];
      for (const r of resolve) r();
    }
  };
  return {
    submit: (slot, change) => {
      pendingBySlot.set(slot, (pendingBySlot.get(slot) ?? 0) + 1);
      waiting.push({ slot, change });
      pump();
    },
    get backlog() {
      return waiting.length;
    },
    get inFlight() {
      return inFlight;
    },
    pending: (slot) => pendingBySlot.get(slot) ?? 0,
    settled: () => (waiting.length === 0 && inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => void idle.push(resolve))),
  };
}
