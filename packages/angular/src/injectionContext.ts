/**
 * What every injector function of the package does first: find its injector (the one given, or the
 * current injection context's), and the shared informer it was handed.
 */
import { assertInInjectionContext, inject, Injector, NgZone } from '@angular/core';
import { InvalidOptionsError, type KubeObject, type SharedInformer } from '@rxinformer/core';
import { NotInInjectionContextError } from './errors.ts';
import type { InformerRef } from './injectInformer.ts';

/** A shared informer, or what `injectInformer` returned for one. */
export type InformerSource<T extends KubeObject> = SharedInformer<T> | InformerRef<T>;

/**
 * `injector`, or the current injection context's injector; throws `NotInInjectionContextError`
 * (with Angular's error as `cause`) when there is neither.
 * @internal
 */
export function contextInjector(caller: (...args: never[]) => unknown, injector: Injector | undefined): Injector {
  if (injector !== undefined) {
    if (injector === null || typeof injector !== 'object' || typeof injector.get !== 'function')
      throw new InvalidOptionsError(`${caller.name}: injector must be an Angular Injector`);
    return injector;
  }
  try {
    assertInInjectionContext(caller);
  } catch (e) {
    throw new NotInInjectionContextError(caller.name, { cause: e });
  }
  return inject(Injector);
}

/**
 * The shared informer behind `source`; throws `InvalidOptionsError` for anything else.
 * @internal
 */
export function sharedInformerOf<T extends KubeObject>(source: InformerSource<T>, caller: string): SharedInformer<T> {
  const informer = source !== null && typeof source === 'object' && 'informer' in source ? source.informer : source;
  if (informer === null || typeof informer !== 'object' || typeof informer.getStore !== 'function' || !informer.store$)
    throw new InvalidOptionsError(`${caller} needs a shared informer (or what injectInformer returned)`);
  return informer;
}

/**
 * Runs `fn` outside Angular's zone when the injector has one (zone.js): what it subscribes to then
 * triggers no app-wide change detection by itself.
 * @internal
 */
export function outsideAngular<R>(injector: Injector, fn: () => R): R {
  const zone = injector.get(NgZone, null);
  return zone ? zone.runOutsideAngular(fn) : fn();
}
