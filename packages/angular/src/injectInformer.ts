/**
 * `injectInformer`: the shared informer of a resource from the nearest `provideInformers`, with
 * its store, sync state and status as signals.
 */
import { signal, type Injector, type Signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import {
  InvalidOptionsError,
  whileSubscribed,
  type InformerForOptions,
  type KubeObject,
  type ReflectorStatus,
  type ResourceDescriptor,
  type SharedInformer,
  type StoreSnapshot,
} from '@rxinformer/core';
import { contextInjector, outsideAngular } from './injectionContext.ts';
import { informerHost } from './provideInformers.ts';

/** What `injectInformer` returns: the informer, and signals of its state. */
export interface InformerRef<T extends KubeObject> {
  /** The shared informer (one per resource and scope in the factory), for handlers and Observables. */
  readonly informer: SharedInformer<T>;
  /**
   * The latest snapshot of the cache: a new value on every change (frozen, immutable snapshots).
   * Derive from it with `computed`, or with `informerSignal` to notify only on the changes you show.
   */
  readonly store: Signal<StoreSnapshot<T>>;
  /** False until the first complete list has been applied, then true: show a placeholder until then. */
  readonly synced: Signal<boolean>;
  /** The reflector's condition (`watching`, `backingOff` with `lastError` and `backoffMs`, relists…). */
  readonly status: Signal<ReflectorStatus>;
}

/** Options of `injectInformer`: the informer's scope and options, and where to inject from. */
export interface InjectInformerOptions<T extends KubeObject> extends InformerForOptions<T> {
  /** The injector to use outside an injection context. Default: the current injection context's. */
  injector?: Injector;
  /**
   * True: the informer's watch runs only while the `store` signal of some `injectInformer` of it
   * is alive (core's `whileSubscribed`): the first starts it, and it stops when the last one's
   * context is destroyed. Decided by the first request of a resource and scope; later requests
   * inherit it, and one that asks otherwise throws `InvalidOptionsError`. Do not request the
   * informer from the factory elsewhere. Default false: the informer runs as long as the factory.
   */
  whileRead?: boolean;
}

/**
 * The informer of `resource` (in the provided factory's scope, or the one given), with its state
 * as signals. The informer is made and started on first request, outside Angular's zone; later
 * requests for the same resource and scope get the same informer (its first options hold). The
 * signals' subscriptions end when the calling context (component, service, route) is destroyed;
 * the informer runs on until the injector of `provideInformers` is.
 *
 * Throws `InformersNotProvidedError` without `provideInformers`, `NotInInjectionContextError`
 * outside an injection context without `{ injector }`, and core's `InvalidOptionsError` for a bad
 * descriptor or options.
 *
 * @example
 * @Component({ template: `{{ pods.store().size }} pods {{ pods.synced() ? '' : '(loading)' }}` })
 * export class PodCount {
 *   readonly pods = injectInformer(podsResource, { namespace: 'default' });
 * }
 *
 * Caveat: the store is frozen: copy an object (`structuredClone`) before binding it to a form.
 */
export function injectInformer<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  options: InjectInformerOptions<T> = {},
): InformerRef<T> {
  const { injector: given, whileRead, ...informerOptions } = options ?? {};
  if (whileRead !== undefined && typeof whileRead !== 'boolean') throw new InvalidOptionsError('whileRead must be a boolean');
  const injector = contextInjector(injectInformer, given);
  const host = informerHost(injector, 'injectInformer');
  const informer = host.informerFor(resource, informerOptions, whileRead);
  const store$ = host.runsWhileRead(informer) ? whileSubscribed(informer) : informer.store$;
  return outsideAngular(injector, () => ({
    informer,
    // On the server without startOnServer, the store as it is (empty): whileSubscribed would start
    // the informer. synced$ and status$ start nothing.
    store: host.dormant ? signal(informer.getStore()).asReadonly() : toSignal(store$, { requireSync: true, injector }),
    synced: toSignal(informer.synced$, { requireSync: true, injector }),
    status: toSignal(informer.status$, { requireSync: true, injector }),
  }));
}
