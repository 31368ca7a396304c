/**
 * @rxinformer/angular — live Kubernetes state as Angular signals: `provideInformers` (one informer
 * factory per environment injector, started on first use, shut down with the injector),
 * `injectInformer` (an informer's store, sync state and status as signals), `informerSignal` (a
 * selected value that notifies only when it changes) and `injectEventHandler` (a handler with its
 * lag). Zoneless or with zone.js; on the server, no watch unless asked.
 *
 * @example
 * // app.config.ts
 * providers: [provideInformers({ source: (resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }) })]
 * // a component
 * readonly pods = injectInformer(podsResource);
 * readonly running = informerSignal(this.pods, (s) => s.list().filter((p) => p.status?.phase === 'Running').length);
 *
 * @module @rxinformer/angular
 */

// Providers
export { provideInformers, injectInformerFactory } from './provideInformers.ts';
export type { InformersConfig } from './provideInformers.ts';

// Signals
export { injectInformer } from './injectInformer.ts';
export type { InformerRef, InjectInformerOptions } from './injectInformer.ts';
export { informerSignal } from './informerSignal.ts';
export type { InformerSignalOptions } from './informerSignal.ts';
export { injectEventHandler } from './injectEventHandler.ts';
export type { EventHandlerRef, InjectEventHandlerOptions } from './injectEventHandler.ts';
export type { InformerSource } from './injectionContext.ts';

// Errors
export { InformersNotProvidedError, NotInInjectionContextError } from './errors.ts';
