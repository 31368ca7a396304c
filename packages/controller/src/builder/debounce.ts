/**
 * A per-key debounce in front of a work queue (kube-rs's controller debounce): a key changed
 * several times within `ms` is added once, `ms` after its last change, at the highest priority
 * any of those changes asked for.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { WorkQueue } from '@rxinformer/core/workqueue';

/** Adds keys to a queue, each once it has been quiet for the debounce time. */
export class Debouncer {
  readonly #pending = new Map<string, { priority: number; timer: Subscription }>();
  readonly #queue: WorkQueue<string>;
  readonly #ms: number;
  readonly #scheduler: SchedulerLike;

  /** `ms` 0: every key is added at once. */
  constructor(queue: WorkQueue<string>, ms: number, scheduler: SchedulerLike) {
    this.#queue = queue;
    this.#ms = ms;
    this.#scheduler = scheduler;
  }

  /** Keys waiting for their quiet time. */
  get pending(): number {
    return this.#pending.size;
  }

  /** `key` changed: add it once it has been quiet for the debounce time (now, with none). */
  push(key: string, priority: number): void {
    if (this.#ms === 0) {
      this.#queue.add(key, priority);
      return;
    }
    const before = this.#pending.get(key);
    before?.timer.unsubscribe(); // a change within the quiet time starts it again
    const merged = Math.max(before?.priority ?? priority, priority);
    const timer = this.#scheduler.schedule(() => {
      this.#pending.delete(key);
      this.#queue.add(key, merged);
    }, this.#ms);
    this.#pending.set(key, { priority: merged, timer });
  }

  /** Adds every key still waiting at once (before a drain). */
  flush(): void {
    const pending = [...this.#pending];
    this.cancel();
    for (const [key, { priority }] of pending) this.#queue.add(key, priority);
  }

  /** Drops every key still waiting. */
  cancel(): void {
    for (const { timer } of this.#pending.values()) timer.unsubscribe();
    this.#pending.clear();
  }
}
