/**
 * A controller loop over a `WorkQueue`: waits for the caches to sync, then runs `concurrency`
 * workers that reconcile keys, retrying failures with the queue's per-key backoff.
 */
import { BehaviorSubject, filter, firstValueFrom, isObservable, map, type Observable } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';
import type { Delta, KubeObject } from './types.ts';
import { WorkQueue } from './workqueue.ts';

/** Options of `runController`. */
export interface ControllerOptions<K> {
  /** Reconciles one key; a throw or rejection retries it with backoff. */
  reconcile: (key: K) => unknown | Promise<unknown>;
  /** Resolves (or emits `true`) once the informers the controller reads have synced. */
  synced: Observable<boolean> | Promise<unknown>;
  /** The queue to work on. Default: a new `WorkQueue`. */
  queue?: WorkQueue<K>;
  /** Parallel workers; one key is never handled by two at once. Default 1. */
  concurrency?: number;
  /** Retries before a key is dropped (reported, then forgotten). Default: unlimited. */
  maxRetries?: number;
  /** Called with each failure. Default: none. */
  onError?: (key: K, error: unknown, retries: number) => void;
}

/** Figures of a running controller. */
export interface ControllerMetrics {
  reconciled: number;
  failed: number;
  dropped: number;
  active: number;
}

/** A running controller. */
export interface ControllerHandle<K> {
  readonly queue: WorkQueue<K>;
  readonly metrics$: Observable<ControllerMetrics>;
  /** Stops taking new keys, lets the keys in progress and waiting finish, then resolves. */
  stop(): Promise<void>;
}

/**
 * Runs a controller loop.
 *
 * @example
 * const queue = new WorkQueue<string>();
 * pods.events$.pipe(toKeys()).subscribe((key) => queue.add(key));
 * const ctl = runController({ queue, synced: pods.synced$, reconcile: async (key) => { ... } });
 * await ctl.stop();
 */
export function runController<K = string>(options: ControllerOptions<K>): ControllerHandle<K> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new InvalidOptionsError(`concurrency must be an integer >= 1, got ${options.concurrency}`);
  if (typeof options.reconcile !== 'function') throw new InvalidOptionsError('reconcile must be a function');
  const queue = options.queue ?? new WorkQueue<K>();
  const metrics = new BehaviorSubject<ControllerMetrics>({ reconciled: 0, failed: 0, dropped: 0, active: 0 });
  const bump = (patch: (m: ControllerMetrics) => Partial<ControllerMetrics>) => metrics.next({ ...metrics.value, ...patch(metrics.value) });
  const synced = isObservable(options.synced) ? firstValueFrom(options.synced.pipe(filter(Boolean))) : options.synced;
  let stopping = false;
  let stopped!: () => void;
  const stopSignal = new Promise<void>((resolve) => { stopped = resolve; });

  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      bump((m) => ({ active: m.active + 1 }));
      try {
        await options.reconcile(key);
        queue.forget(key);
        bump((m) => ({ reconciled: m.reconciled + 1 }));
      } catch (error) {
        const retries = queue.numRequeues(key);
        options.onError?.(key, error, retries);
        if (options.maxRetries !== undefined && retries >= options.maxRetries) {
          queue.forget(key);
          bump((m) => ({ failed: m.failed + 1, dropped: m.dropped + 1 }));
        } else {
          if (!stopping) queue.addRateLimited(key);
          bump((m) => ({ failed: m.failed + 1 }));
        }
      } finally {
        bump((m) => ({ active: m.active - 1 }));
        queue.done(key);
      }
    }
  };

  // Workers start once synced — or never, if stopped first.
  const workers = Promise.race([Promise.resolve(synced), stopSignal]).then(() => (stopping ? [] : Promise.all(Array.from({ length: concurrency }, worker))));
  return {
    queue,
    metrics$: metrics.asObservable(),
    stop: async () => {
      stopping = true;
      stopped();
      await queue.shutdown(true);
      await workers;
      metrics.complete();
    },
  };
}

/** Maps informer deltas to their keys (tombstones included), ready for `queue.add`. */
export function toKeys<T extends KubeObject>() {
  return (source: Observable<Delta<T>>): Observable<string> => source.pipe(map((d) => d.key));
}
