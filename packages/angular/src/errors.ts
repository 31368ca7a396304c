/**
 * The package's named errors, on core's `RxInformerError` (a machine-readable `reason`, an ES2022
 * `cause`), so an app can `instanceof` them next to core's own.
 */
import { RxInformerError } from '@rxinformer/core';

/**
 * `injectInformer` (or another injector function) found no `provideInformers(...)` in the
 * injector it runs in or any injector above it.
 *
 * @example
 * bootstrapApplication(App, { providers: [provideInformers({ source })] }); // fixes it app-wide
 */
export class InformersNotProvidedError extends RxInformerError {
  /** Always `InformersNotProvidedError`: set as a string, so it survives minification. */
  override readonly name: string = 'InformersNotProvidedError';
  constructor(caller: string) {
    super(
      'InformersNotProvided',
      `${caller}() found no informers: add provideInformers({ source }) to the application's providers (or a route's providers)`,
    );
  }
}

/**
 * An injector function was called outside an injection context (a field initializer, a
 * constructor, a provider factory, `runInInjectionContext`) without an `injector` option. The
 * `cause` is Angular's own error.
 *
 * @example
 * readonly pods = injectInformer(podsResource);                        // a field initializer: fine
 * ngOnInit() { injectInformer(podsResource, { injector: this.injector }); } // elsewhere: pass one
 */
export class NotInInjectionContextError extends RxInformerError {
  /** Always `NotInInjectionContextError`: set as a string, so it survives minification. */
  override readonly name: string = 'NotInInjectionContextError';
  constructor(caller: string, options?: { cause?: unknown }) {
    super(
      'NotInInjectionContext',
      `${caller}() must run in an injection context (a field initializer, a constructor, a provider factory) or be given { injector }`,
      options,
    );
  }
}
