/**
 * Paged lists for the tests whose fake servers answer scripted lists: the reflector streams its
 * lists by default (a watch with `sendInitialEvents`), which those fakes do not serve.
 */
import type { InformerFactory, InformerForOptions, KubeObject, ResourceDescriptor } from '@rxinformer/core';
import type { ReflectorOptions } from '@rxinformer/core/reflector';

/** The reflector option of a case that scripts paged lists. */
export const PAGED = { useStreamingList: false } as const satisfies ReflectorOptions;

/**
 * `factory` with every informer it makes paging (`reflector: PAGED` under the options of each
 * `informerFor`, the informer's own reflector options over it): for the factories over fakes that
 * answer scripted lists. What is handed the result (a controller builder) makes its informers so too.
 */
export function pagedInformers<F extends InformerFactory>(factory: F): F {
  const informerFor = factory.informerFor.bind(factory);
  return {
    ...factory,
    informerFor: <T extends KubeObject>(resource: ResourceDescriptor<T>, options: InformerForOptions<T> = {}) =>
      informerFor(resource, { ...options, reflector: { ...PAGED, ...options.reflector } }),
  };
}
