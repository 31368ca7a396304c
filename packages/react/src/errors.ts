/**
 * The package's named errors, on core's `RxInformerError` (a machine-readable `reason`, an ES2022
 * `cause`), so an app can `instanceof` them next to core's own.
 */
import { RxInformerError } from '@rxinformer/core';

/**
 * A hook was given a resource descriptor (or asked for the factory) with no `<InformerProvider>`
 * above its component: there is no factory to take the informer from.
 *
 * @example
 * root.render(<InformerProvider factory={factory}><App /></InformerProvider>); // fixes it app-wide
 */
export class InformerProviderMissingError extends RxInformerError {
  override readonly name: string = 'InformerProviderMissingError';
  constructor(hook: string) {
    super(
      'InformerProviderMissing',
      `${hook}() found no <InformerProvider> above its component: wrap the app in <InformerProvider factory={...}> (or source={...}), or pass the hook a SharedInformer`,
    );
  }
}
