/**
 * Per-handler series of an informer's metrics (labels `informer`, `handler`): buffer depth, lag,
 * deliveries and failures, read from each registration's `metrics$` at scrape time only.
 */
import type { Registry } from 'prom-client';
import type { Observable } from 'rxjs';
import type { HandlerMetrics } from '@rxinformer/core';
import { collectedCounter, collectedGauge, type Rows } from './collected.ts';

/** The names of the handler metrics. */
export const HANDLER_METRIC_NAMES = [
  'rxinformer_handler_queue_depth',
  'rxinformer_handler_lag_seconds',
  'rxinformer_handler_notifications_total',
  'rxinformer_handler_errors_total',
] as const;

/** What is read of a handler: every `HandlerRegistration` has it. */
export interface ObservedHandler {
  /** The handler's name: the `handler` label. */
  readonly name: string;
  /** Its figures: the current ones on subscription (none once removed). */
  readonly metrics$: Observable<HandlerMetrics>;
}

/** The handlers of one informer. */
export type HandlerSource = Set<ObservedHandler>;

/** The figures of `h` now, or undefined once it was removed. */
function figuresNow(h: ObservedHandler): HandlerMetrics | undefined {
  let figures: HandlerMetrics | undefined;
  h.metrics$
    .subscribe((f) => {
      figures ??= f;
    })
    .unsubscribe();
  return figures;
}

/** The handler families over the informers' sources (each source's `handlers`). */
export function handlerSeries(registers: Registry[], sources: ReadonlyMap<string, { readonly handlers: HandlerSource }>) {
  const labelNames = ['informer', 'handler'];
  /** Every handler's labels and `read` of its figures now; removed handlers are dropped. */
  const rows = (read: (f: HandlerMetrics) => number) =>
    function* (): Rows {
      for (const [informer, s] of sources)
        for (const h of s.handlers) {
          const f = figuresNow(h);
          if (f === undefined) s.handlers.delete(h);
          else yield [{ informer, handler: h.name }, read(f)];
        }
    };
  const config = (name: string, help: string) => ({ name, help, labelNames, registers });
  return {
    handlerDepth: collectedGauge(
      config('rxinformer_handler_queue_depth', "Notifications waiting in the handler's buffer."),
      rows((f) => f.depth),
    ),
    handlerLag: collectedGauge(
      config('rxinformer_handler_lag_seconds', 'Seconds the last notification delivered to the handler waited in its buffer.'),
      rows((f) => f.lagMs / 1000),
    ),
    handlerDelivered: collectedCounter(
      config('rxinformer_handler_notifications_total', 'Notifications delivered to the handler.'),
      rows((f) => f.delivered),
    ),
    handlerErrors: collectedCounter(
      config('rxinformer_handler_errors_total', 'Handler callbacks that threw or rejected.'),
      rows((f) => f.errors),
    ),
  };
}
