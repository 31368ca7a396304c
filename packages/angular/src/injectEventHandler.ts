/**
 * `injectEventHandler`: an informer event handler that lives as long as the calling context, with
 * its sync state and delivery figures (lag, backlog) as signals.
 */
import { DestroyRef, signal, type Injector, type Signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import type { EventHandler, EventHandlerOptions, HandlerMetrics, HandlerRegistration, KubeObject } from '@rxinformer/core';
import { contextInjector, outsideAngular, sharedInformerOf, type InformerSource } from './injectionContext.ts';
import { isDormant } from './provideInformers.ts';

/** Options of `injectEventHandler`: the handler's options, and where to inject from. */
export interface InjectEventHandlerOptions extends EventHandlerOptions {
  /** The injector whose destruction removes the handler. Default: the current injection context's. */
  injector?: Injector;
}

/** What `injectEventHandler` returns: the registration, and its state as signals. */
export interface EventHandlerRef {
  /** The core registration; undefined on the server when the informers do not run there. */
  readonly registration: HandlerRegistration | undefined;
  /** True once the handler has finished every object of the initial list. */
  readonly synced: Signal<boolean>;
  /** Delivery figures: backlog (`depth`), `lagMs`, `delivered`, `errors`. */
  readonly metrics: Signal<HandlerMetrics>;
  /**
   * How long the last delivered notification waited in the handler's buffer, in ms; notifies only
   * when the lag changes (`metrics` notifies on every delivery).
   */
  readonly lagMs: Signal<number>;
  /** Removes the handler now (it is removed anyway when the calling context is destroyed). */
  remove(): void;
}

const NO_METRICS: HandlerMetrics = { depth: 0, lagMs: 0, delivered: 0, errors: 0 };

/**
 * Registers `handler` on the informer until the calling context (component, service) is destroyed.
 * Its callbacks run outside Angular's zone, one at a time, from the handler's own buffer (a slow
 * handler delays nothing else); signals they set schedule change detection where they are read.
 * Call it in an injection context, or pass `{ injector }`.
 *
 * Throws core's `InvalidOptionsError` for a handler without callbacks or bad options, and
 * `InformerShutdownError` for an informer shut down.
 *
 * @example
 * readonly log = signal<string[]>([]);
 * readonly logger = injectEventHandler(this.pods, {
 *   onAdd: (pod) => this.log.update((l) => [`added ${pod.metadata?.name}`, ...l].slice(0, 20)),
 * });
 * // template: lag {{ logger.lagMs() }} ms
 *
 * Caveat: a handler added after the sync first receives the whole cache as adds flagged
 * `isInInitialList`; skip those when you only want live changes.
 */
export function injectEventHandler<T extends KubeObject>(
  source: InformerSource<T>,
  handler: EventHandler<T>,
  options: InjectEventHandlerOptions = {},
): EventHandlerRef {
  const informer = sharedInformerOf(source, 'injectEventHandler');
  const { injector: given, ...handlerOptions } = options ?? {};
  const injector = contextInjector(injectEventHandler, given);
  if (isDormant(informer)) {
    return {
      registration: undefined,
      synced: signal(false).asReadonly(),
      metrics: signal(NO_METRICS).asReadonly(),
      lagMs: signal(0).asReadonly(),
      remove: () => {},
    };
  }
  const registration = outsideAngular(injector, () => informer.addEventHandler(handler, handlerOptions));
  // One subscription feeds both: metrics changes with every delivery, lagMs only when the lag does
  // (a signal set to an equal value notifies nobody), so a view showing the lag is not re-checked
  // per event.
  const metrics = signal(NO_METRICS);
  const lagMs = signal(0);
  const figures = outsideAngular(injector, () =>
    registration.metrics$.subscribe((m) => {
      metrics.set(m);
      lagMs.set(m.lagMs);
    }),
  );
  injector.get(DestroyRef).onDestroy(() => {
    figures.unsubscribe();
    registration.remove();
  });
  return {
    registration,
    synced: outsideAngular(injector, () => toSignal(registration.synced$, { requireSync: true, injector })),
    metrics: metrics.asReadonly(),
    lagMs: lagMs.asReadonly(),
    remove: () => registration.remove(),
  };
}
