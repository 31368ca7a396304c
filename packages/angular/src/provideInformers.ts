/**
 * `provideInformers`: one informer factory per environment injector (the application's, or a
 * route's), made and started when something first injects it, shut down with that injector. On the
 * server (SSR) it starts nothing unless asked, and when asked it holds the render until synced.
 */
import {
  DestroyRef,
  InjectionToken,
  Injector,
  PLATFORM_ID,
  PendingTasks,
  inject,
  makeEnvironmentProviders,
  type EnvironmentProviders,
} from '@angular/core';
import {
  createInformerFactory,
  InvalidOptionsError,
  type InformerFactory,
  type InformerFactoryOptions,
  type InformerForOptions,
  type KubeObject,
  type ListerWatcherSource,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { contextInjector, outsideAngular } from './injectionContext.ts';
import { InformersNotProvidedError } from './errors.ts';

/** What `provideInformers` takes: a ListerWatcher source and the factory's defaults. */
export interface InformersConfig extends InformerFactoryOptions {
  /**
   * Makes the ListerWatcher of a resource in a scope. Required. In a browser, through the app's
   * own origin (its backend or `kubectl proxy` forwarding `/api` and `/apis`):
   * `(resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope })`.
   */
  source: ListerWatcherSource;
  /**
   * On the server (SSR, `PLATFORM_ID` `'server'`): list and watch as in the browser, and hold the
   * render (Angular's `PendingTasks`) until every informer requested has synced. Default false:
   * on the server no informer starts, every store stays empty and `synced` false.
   */
  startOnServer?: boolean;
}

/**
 * The informers of one environment injector: its factory, and where and whether they run.
 * @internal made by `provideInformers`; read through `injectInformer` and friends.
 */
export class InformerHost {
  /** The factory; started at once unless this host is dormant. */
  readonly factory: InformerFactory;
  /** True on the server without `startOnServer`: nothing may start a watch. */
  readonly dormant: boolean;
  readonly #injector = inject(Injector);
  readonly #pendingTasks: PendingTasks | null;
  /** Whether each informer requested through `informerFor` runs only while read, as its first request said. */
  readonly #whileRead = new WeakMap<object, boolean>();

  constructor(config: InformersConfig) {
    const { source, startOnServer = false, ...factoryOptions } = config;
    const onServer = inject(PLATFORM_ID, { optional: true }) === 'server';
    this.dormant = onServer && !startOnServer;
    this.#pendingTasks = onServer && !this.dormant ? inject(PendingTasks) : null;
    this.factory = createInformerFactory(source, factoryOptions);
    inject(DestroyRef).onDestroy(() => this.factory.shutdown());
    if (!this.dormant) this.outsideAngular(() => this.factory.start());
  }

  /**
   * The factory's informer of `resource` (made and started outside Angular's zone on first request).
   * `whileRead` is held from the informer's first request here (see `runsWhileRead`); a later
   * request that asks otherwise throws `InvalidOptionsError`.
   */
  informerFor<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    options: InformerForOptions<T>,
    whileRead?: boolean,
  ): SharedInformer<T> {
    const informer = this.outsideAngular(() => this.factory.informerFor(resource, options));
    const held = this.#whileRead.get(informer);
    if (held === undefined) this.#whileRead.set(informer, whileRead === true);
    else if (whileRead !== undefined && whileRead !== held)
      throw new InvalidOptionsError(`the ${resource.resource} informer of this scope was first requested with whileRead: ${held}`);
    if (this.dormant) dormantInformers.add(informer);
    if (this.#pendingTasks) {
      // The server render waits for the cache (every informer requested so far, this one included).
      const done = this.#pendingTasks.add();
      this.factory.waitForCacheSync().then(done, done);
    }
    return informer;
  }

  /** True when `informer` runs only while its store is read (its first request asked `whileRead`). */
  runsWhileRead(informer: object): boolean {
    return this.#whileRead.get(informer) === true;
  }

  /**
   * Runs `fn` outside Angular's zone (with zone.js): watch chunks, backoff and idle timers then
   * trigger no app-wide change detection; the signals they set still schedule it where read.
   */
  outsideAngular<R>(fn: () => R): R {
    return outsideAngular(this.#injector, fn);
  }
}

/** Informers of dormant hosts: signals over them show the (empty) store and never subscribe. */
const dormantInformers = new WeakSet<object>();

/** True when `informer` belongs to a server-side host that must not start it. */
export function isDormant(informer: object): boolean {
  return dormantInformers.has(informer);
}

const INFORMER_HOST = new InjectionToken<InformerHost>('@rxinformer/angular informers');

/**
 * Provides informers to an environment injector: the application's (`bootstrapApplication`'s or
 * `ApplicationConfig`'s `providers`) or a route's (`providers` of a `Route`). Each such injector
 * gets its own factory, so one list and one watch per resource and scope however many components
 * inject it. The factory is made and started when first injected (outside Angular's zone, with
 * zone.js), and shut down, its watches aborted, when the injector is destroyed.
 *
 * Throws `InvalidOptionsError` at once for a missing `source`; the factory's own options are
 * checked when it is made.
 *
 * @example
 * bootstrapApplication(App, {
 *   providers: [
 *     provideZonelessChangeDetection(),
 *     provideInformers({ source: (resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }) }),
 *   ],
 * });
 *
 * Caveat: a browser keeps at most 6 HTTP/1.1 connections per origin and every informer holds a
 * watch open: keep the resources watched per page few, or serve the API over HTTP/2.
 */
export function provideInformers(config: InformersConfig): EnvironmentProviders {
  if (config === null || typeof config !== 'object') throw new InvalidOptionsError('provideInformers needs a config object');
  if (typeof config.source !== 'function')
    throw new InvalidOptionsError('provideInformers needs a source: (resource, scope) => ListerWatcher');
  if (config.startOnServer !== undefined && typeof config.startOnServer !== 'boolean')
    throw new InvalidOptionsError('startOnServer must be a boolean');
  return makeEnvironmentProviders([{ provide: INFORMER_HOST, useFactory: () => new InformerHost(config) }]);
}

/**
 * The `InformerHost` of the nearest `provideInformers`, from `injector`.
 * @internal
 */
export function informerHost(injector: Injector, caller: string): InformerHost {
  const host = injector.get(INFORMER_HOST, null);
  if (!host) throw new InformersNotProvidedError(caller);
  return host;
}

/**
 * The informer factory of the nearest `provideInformers` (made and started if it was not yet), for
 * what the signals do not cover: `waitForCacheSync()` in a route resolver, or an informer without
 * signals. Call it in an injection context, or pass `{ injector }`.
 *
 * @example
 * export const podsSynced: ResolveFn<void> = () => injectInformerFactory().waitForCacheSync();
 *
 * Caveat: informers you request from it directly are started inside Angular's zone when you call
 * `informerFor` from inside it; `injectInformer` starts them outside.
 */
export function injectInformerFactory(options: { injector?: Injector } = {}): InformerFactory {
  return informerHost(contextInjector(injectInformerFactory, options.injector), 'injectInformerFactory').factory;
}
