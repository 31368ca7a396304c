/**
 * The numbers of a controller's reconciles, under controller-runtime's meanings: what each
 * reconcile ended with, errors, terminal errors, panics, timeouts, workers busy and allowed, and
 * the staleness check's skips (Kubernetes 1.36). A snapshot to read at any time, and a stream of
 * each reconcile as it ends, for histograms; `@rxinformer/prometheus`'s `controllerRuntimeMetrics`
 * turns them into controller-runtime's metrics.
 */
import { Subject, type Observable } from 'rxjs';

/** What a reconcile ended with: controller-runtime's `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/** One reconcile, as it ended. */
export interface ReconcileEvent {
  /** The controller's name. */
  readonly controller: string;
  /** The key reconciled. */
  readonly key: string;
  /** The reconcile's id (also in its log lines). */
  readonly reconcileID: string;
  /** What it ended with. */
  readonly result: ReconcileResultLabel;
  /** How long it ran, in seconds (on the controller's scheduler clock). */
  readonly seconds: number;
}

/** A controller's reconcile counts since it was made (over every term), and its workers now. */
export interface ReconcileStats {
  /** Reconciles by what they ended with (`controller_runtime_reconcile_total{result}`). */
  readonly total: Readonly<Record<ReconcileResultLabel, number>>;
  /** Reconciles that failed, terminal ones and panics included (`controller_runtime_reconcile_errors_total`). */
  readonly errors: number;
  /** Reconciles that failed with a `TerminalError`, not retried (`controller_runtime_terminal_reconcile_errors_total`). */
  readonly terminalErrors: number;
  /** Reconciles that threw a programming error, recovered (`controller_runtime_reconcile_panics_total`). */
  readonly panics: number;
  /** Reconciles aborted for outliving `reconcileTimeoutMs` (`controller_runtime_reconcile_timeouts_total`). */
  readonly timeouts: number;
  /** Reconciles running now (`controller_runtime_active_workers`). */
  readonly activeWorkers: number;
  /** The controller's concurrency (`controller_runtime_max_concurrent_reconciles`). */
  readonly maxConcurrentReconciles: number;
  /** Reconciles put off because the caches did not show the key's own writes yet (`stale_sync_skips_total`). */
  readonly staleSyncSkips: number;
}

/** The counts a controller keeps, and the stream of its reconciles. */
export class ReconcileCounts {
  readonly total: Record<ReconcileResultLabel, number> = { success: 0, error: 0, requeue: 0, requeue_after: 0 };
  errors = 0;
  terminalErrors = 0;
  panics = 0;
  timeouts = 0;
  activeWorkers = 0;
  staleSyncSkips = 0;
  readonly maxConcurrentReconciles: number;
  readonly #events = new Subject<ReconcileEvent>();

  constructor(concurrency: number) {
    this.maxConcurrentReconciles = concurrency;
  }

  /**
   * Each reconcile as it ends (hot; nothing is made while nobody listens): those that started
   * once someone listened — a reconcile is timed only then, as a clock read costs.
   */
  get events$(): Observable<ReconcileEvent> {
    return this.#events.asObservable();
  }

  /** True while someone listens to `events$`: a reconcile starting now is timed. */
  get observed(): boolean {
    return this.#events.observed;
  }

  /** Counts a reconcile that ended; `event` makes its event, if anyone listens. */
  ended(result: ReconcileResultLabel, event: (() => ReconcileEvent) | undefined): void {
    this.total[result]++;
    if (event !== undefined && this.#events.observed) this.#events.next(event());
  }

  /** A copy of the counts now. */
  snapshot(): ReconcileStats {
    const { errors, terminalErrors, panics, timeouts, activeWorkers, maxConcurrentReconciles, staleSyncSkips } = this;
    return { total: { ...this.total }, errors, terminalErrors, panics, timeouts, activeWorkers, maxConcurrentReconciles, staleSyncSkips };
  }
}
