/**
 * Paged lists for the cases that script list pages over a ListerWatcher that serves streaming lists
 * (an HTTP one over a fake server, a `fakeListerWatcher({ watchList: true })`): the reflector would
 * stream from it. A ListerWatcher without `watchList` pages without them.
 */
import type { InformerFactory, InformerForOptions, KubeObject, ResourceDescriptor } from '@rxinformer/core';
import type { ReflectorOptions } from '@rxinformer/core/reflector';

/** The reflector option of a case that scripts paged lists. */
export const PAGED = { useStreamingList: false } as const satisfies ReflectorOptions;

/**
 * `factory` with every informer it makes paging (`reflector: PAGED` under the options of each
 * `informerFor`, the informer's own reflector options over it): for the factories over fakes that
 * answer scripted lists and serve streaming ones. What is handed the result (a controller builder)
 * makes its informers so too.
 */
export function pagedInformers<F extends InformerFactory>(factory: F): F {
  const informerFor = factory.informerFor.bind(factory);
  return {
    ...factory,
    informerFor: <T extends KubeObject>(resource: ResourceDescriptor<T>, options: InformerForOptions<T> = {}) =>
      informerFor(resource, { ...options, reflector: { ...PAGED, ...options.reflector } }),
  };
}
