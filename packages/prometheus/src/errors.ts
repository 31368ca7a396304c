/**
 * The errors of the metrics package: each a named `RxInformerError` with a `reason`.
 */
import { RxInformerError } from '@rxinformer/core';

/**
 * A metric could not be registered: the registry already holds a metric of that name that this
 * package did not make (`reason` `MetricConflict`, prom-client's own error as `cause` when it threw),
 * or the series for that label value is already fed by another source (`reason` `DuplicateSource`).
 *
 * Registering the metrics of a second queue or informer in the same registry is not a conflict: the
 * metric families are made once per registry and shared, one series per `name`.
 */
export class MetricConflictError extends RxInformerError {
  /** Always `MetricConflictError`: set as a string, so it survives minification. */
  override readonly name: string = 'MetricConflictError';
  /** The metric's name, e.g. `workqueue_depth`. */
  readonly metric: string;

  constructor(reason: 'MetricConflict' | 'DuplicateSource', metric: string, message: string, options?: { cause?: unknown }) {
    super(reason, message, options);
    this.metric = metric;
  }
}
