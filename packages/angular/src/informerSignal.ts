/**
 * `informerSignal`: a value selected from an informer's store as a signal that notifies only when
 * the value changes. The selection is evaluated as each change of the store arrives, outside any
 * change detection: an event that leaves it equal reaches no reader, schedules no render.
 */
import { computed, DestroyRef, signal, untracked, type Injector, type Signal, type ValueEqualityFn } from '@angular/core';
import { InvalidOptionsError, type KubeObject, type StoreSnapshot } from '@rxinformer/core';
import { contextInjector, outsideAngular, sharedInformerOf, type InformerSource } from './injectionContext.ts';
import { isDormant } from './provideInformers.ts';

/** Options of `informerSignal`. */
export interface InformerSignalOptions<R> {
  /**
   * When two selected values are the same: then the signal keeps the old one and notifies nobody.
   * Default `Object.is`, right for primitives and cached objects (frozen: a change is a new object);
   * give one for arrays and objects the select builds anew each time.
   */
  equal?: ValueEqualityFn<R>;
  /** The injector whose destruction ends the subscription. Default: the current injection context's. */
  injector?: Injector;
  /** A name for Angular DevTools. Default: none. */
  debugName?: string;
}

/**
 * A value selected from the informer's store, as a signal. `select` may read other signals (a
 * filter, a route parameter): the value follows them too. Each change of the store runs `select`
 * once as it arrives; when the result is `equal` to the current value nothing is notified, so no
 * view re-renders and, zoneless, no change detection is even scheduled. Call it in an injection
 * context, or pass `{ injector }`; the subscription ends when that injector is destroyed.
 *
 * Throws `InvalidOptionsError` for a missing `select` or a bad `equal`.
 *
 * @example
 * readonly pods = injectInformer(podsResource);
 * readonly namespace = signal('default');
 * readonly running = informerSignal(this.pods, (s) => s.byIndex(NAMESPACE_INDEX, this.namespace()).filter(isRunning).length);
 *
 * Caveat: `select` runs on every change of the cache, so keep it cheap (`byIndex` over `list()` in a
 * large cache); when the value changes it runs once more for the readers. It must not write signals.
 */
export function informerSignal<T extends KubeObject, R>(
  source: InformerSource<T>,
  select: (store: StoreSnapshot<T>) => R,
  options: InformerSignalOptions<R> = {},
): Signal<R> {
  const informer = sharedInformerOf(source, 'informerSignal');
  if (typeof select !== 'function') throw new InvalidOptionsError('informerSignal needs a select function (store) => value');
  if (options.equal !== undefined && typeof options.equal !== 'function')
    throw new InvalidOptionsError('informerSignal: equal must be a function');
  const injector = contextInjector(informerSignal, options.injector);
  const equal = options.equal ?? Object.is;
  let snapshot = informer.getStore();
  // Bumped only when a new snapshot changes the selected value: the one signal edge from the store.
  const changes = signal(0);
  const selected = computed(
    () => {
      changes();
      return select(snapshot);
    },
    { equal, ...(options.debugName !== undefined && { debugName: options.debugName }) },
  );
  if (isDormant(informer)) return selected;

  const differs = (): boolean => {
    try {
      const current = untracked(selected); // the value readers have (or would get without this snapshot)
      return !equal(
        current,
        untracked(() => select(snapshot)),
      );
    } catch {
      return true; // a throwing select or equal: let the readers see it
    }
  };
  const subscription = outsideAngular(injector, () =>
    informer.store$.subscribe((next) => {
      if (next === snapshot) return;
      snapshot = next;
      if (differs()) changes.update((n) => n + 1);
    }),
  );
  injector.get(DestroyRef).onDestroy(() => subscription.unsubscribe());
  return selected;
}
