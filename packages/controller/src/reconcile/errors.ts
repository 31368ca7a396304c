/**
 * What a controller reports, and the reasons a reconcile's signal aborts with.
 */
import { RxInformerError } from '@rxinformer/core';
import { withCause } from '@rxinformer/core/http';

/**
 * What a `ControllerError` reports: `sync`, waiting for the sources failed (no key: no reconcile
 * ran); `reconcile`, a key's reconcile failed, or requeueing it did; `readYourWrites`, a hold of a
 * key ran out before the caches showed its writes (`ReadYourWritesTimeoutError`; not a failure: the
 * key is reconciled on the cache as it is); `source`, a source made a key that names no object
 * (`InvalidSourceKeyError`, such as an owner reference named `.`): that key is given up, the
 * event's other keys are queued.
 */
export type ControllerErrorStage = 'sync' | 'reconcile' | 'readYourWrites' | 'source';

/**
 * A failure reported by a controller. Log it by its `stage`: a `sync` failure has no key.
 *
 * @example
 * onError: (e) => console.error(e.key === undefined ? `${e.stage} failed` : `${e.stage} of ${e.key} failed`, e.error),
 */
export interface ControllerError<K = string> {
  /** What failed: waiting for the sources, a reconcile, a read-your-writes hold, or a source's key. */
  stage: ControllerErrorStage;
  /** The key whose reconcile failed; absent at the `sync` stage and for a source's key it could not make. */
  key?: K;
  /**
   * What the reconcile threw or rejected with; an `InvalidReconcileResultError` for an answer the
   * controller cannot act on; or what the queue threw when the key was requeued (a rate limiter of
   * your own answering NaN): then the key is released and given up (`dropped`).
   */
  error: unknown;
  /** How many times the key had been retried before this failure. */
  retries: number;
  /** True when the key is given up (a terminal error, `maxRetries` reached, or the controller stopping). */
  dropped: boolean;
}

/**
 * Waiting for the sources failed or ended before they synced: the controller never reconciled.
 * Its message ends with the cause's. Reported with `stage: 'sync'` and no key.
 */
export class ControllerSyncError extends RxInformerError {
  /** Always `ControllerSyncError`: set as a string, so it survives minification. */
  override readonly name: string = 'ControllerSyncError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NotSynced', withCause(message, options?.cause), options);
  }
}

/**
 * The reason a reconcile's signal aborts when it outlived the controller's `reconcileTimeoutMs`
 * (controller-runtime's `ReconciliationTimeout`). Counted in `controller_runtime_reconcile_timeouts_total`.
 */
export class ReconcileTimeoutError extends RxInformerError {
  /** Always `ReconcileTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'ReconcileTimeoutError';
  /** The key reconciled. */
  readonly key: string;
  /** The timeout, in ms. */
  readonly timeoutMs: number;

  constructor(key: string, timeoutMs: number) {
    super('ReconcileTimeout', `the reconcile of ${JSON.stringify(key)} ran longer than ${timeoutMs} ms: aborted`);
    this.key = key;
    this.timeoutMs = timeoutMs;
  }
}

/** The reason a reconcile's signal aborts when its controller stops: leadership lost, or the process shutting down. */
export class ControllerStoppedError extends RxInformerError {
  /** Always `ControllerStoppedError`: set as a string, so it survives minification. */
  override readonly name: string = 'ControllerStoppedError';
  constructor(name: string) {
    super('ControllerStopped', `the controller ${JSON.stringify(name)} is stopping: the reconcile was aborted`);
  }
}
