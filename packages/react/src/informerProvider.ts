/**
 * `<InformerProvider>`: hands an informer factory to the hooks below it, and holds it running
 * while it is mounted (`factory.retain()`). StrictMode's unmount and remount, one commit apart,
 * keeps the watches open; the provider never shuts a factory down.
 */
import { createContext, createElement, useContext, useEffect, useMemo, useState, type ReactElement, type ReactNode } from 'react';
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
import { InformerProviderMissingError } from './errors.ts';

/** The factory of the nearest `<InformerProvider>`, or `null` outside any. */
const InformerFactoryContext = createContext<InformerFactory | null>(null);
InformerFactoryContext.displayName = 'InformerFactory';

/** The props of `<InformerProvider>`: a factory, or a source to make one from. */
export interface InformerProviderProps {
  /**
   * The factory the hooks below take their informers from; made by you (`createInformerFactory`,
   * client-node's `createKubeInformerFactory`…) and yours to shut down. Give this or `source`.
   */
  factory?: InformerFactory;
  /**
   * Makes the ListerWatcher of a resource in a scope: the provider makes its own factory from it,
   * once, on its first render (later values are ignored; remount with a `key` to change it).
   * In a browser, through the page's origin:
   * `(resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope })`.
   */
  source?: ListerWatcherSource;
  /** The options of the factory made from `source` (scope, transform, `releaseGraceMs`…). Default: none. */
  options?: InformerFactoryOptions;
  /** The components that use the hooks. */
  children?: ReactNode;
}

/**
 * Gives the components below it an informer factory, and keeps that factory running while the
 * provider is mounted: it calls `factory.retain()` in an effect and releases it on unmount, so the
 * factory starts with the first provider mounted and stops `releaseGraceMs` (default 5000) after
 * the last is unmounted. StrictMode unmounts and mounts it again within one commit: the watches
 * stay open and nothing relists. The provider never calls `shutdown()`: a factory you pass stays
 * yours; one it made from `source` stops with the grace and holds no socket or timer after.
 *
 * On the server (`react-dom/server`) effects do not run: no watch starts, and the hooks render
 * the stores as they are (empty before a sync). A factory you started and synced before
 * rendering renders its caches.
 *
 * Throws `InvalidOptionsError` when given neither or both of `factory` and `source`.
 *
 * @example
 * const factory = createInformerFactory((resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }));
 * createRoot(document.getElementById('root')!).render(
 *   <StrictMode>
 *     <InformerProvider factory={factory}>
 *       <Pods />
 *     </InformerProvider>
 *   </StrictMode>,
 * );
 *
 * Caveat: a browser keeps at most 6 HTTP/1.1 connections per origin and every informer holds a
 * watch open: keep the resources watched per page few, or serve the API over HTTP/2.
 */
export function InformerProvider({ factory, source, options, children }: InformerProviderProps): ReactElement {
  if (factory !== undefined && source !== undefined)
    throw new InvalidOptionsError('<InformerProvider> takes a factory or a source, not both');
  const [owned] = useState(() => (factory === undefined && source !== undefined ? createInformerFactory(source, options) : undefined));
  const active = factory ?? owned;
  if (active === undefined)
    throw new InvalidOptionsError('<InformerProvider> needs a factory={...} or a source={(resource, scope) => ListerWatcher}');
  useEffect(() => active.retain(), [active]);
  return createElement(InformerFactoryContext.Provider, { value: active }, children);
}

/**
 * The factory of the nearest `<InformerProvider>`, for what the hooks do not cover:
 * `waitForCacheSync()`, an event handler, an informer's Observables.
 *
 * Throws `InformerProviderMissingError` outside any provider.
 *
 * @example
 * const factory = useInformerFactory();
 * useEffect(() => factory.informerFor(pods).addEventHandler(handler).remove, [factory]);
 */
export function useInformerFactory(): InformerFactory {
  const factory = useContext(InformerFactoryContext);
  if (factory === null) throw new InformerProviderMissingError('useInformerFactory');
  return factory;
}

/**
 * The shared informer of `resource` from the provider's factory, in the factory's scope or the
 * one `options` gives (one informer per resource and scope, however many components ask). Pass
 * it to the other hooks to read it; it does not re-render by itself.
 *
 * Throws `InformerProviderMissingError` outside any provider, and the factory's errors
 * (`InvalidOptionsError` for a bad descriptor or options; `FactoryShutdownError`).
 *
 * @example
 * const webPods = useInformer(podsResource, { namespace: 'web' });
 * const pods = useList(webPods);
 *
 * Caveat: the informer is looked up again only when the factory, the descriptor or the scope
 * (`namespace`, `labelSelector`, `fieldSelector`) changes; its other options (`indexers`,
 * `transform`) are those of the first request and must be the same on every later one, functions
 * by identity: define them outside the component.
 */
export function useInformer<T extends KubeObject>(resource: ResourceDescriptor<T>, options?: InformerForOptions<T>): SharedInformer<T> {
  const factory = useContext(InformerFactoryContext);
  const { namespace, labelSelector, fieldSelector } = options ?? {};
  return useMemo(() => {
    if (factory === null) throw new InformerProviderMissingError('useInformer');
    return factory.informerFor(resource, options);
    // The options object may be new on every render: the scope's fields say when it changed.
  }, [factory, resource, namespace, labelSelector, fieldSelector]);
}

/** What the reading hooks take: a resource descriptor (the provider's informer of it) or an informer. */
export type InformerSource<T extends KubeObject> = ResourceDescriptor<T> | SharedInformer<T>;

/** True for a shared informer (anything with `getStore` and `store$`), false for a descriptor. */
function isInformer<T extends KubeObject>(source: InformerSource<T>): source is SharedInformer<T> {
  return typeof (source as Partial<SharedInformer<T>>).getStore === 'function' && 'store$' in source;
}

/**
 * The informer of `source`: itself when it is one, else the provider's informer of the
 * descriptor (in the factory's scope).
 * @internal
 */
export function useInformerOf<T extends KubeObject>(source: InformerSource<T>, hook: string): SharedInformer<T> {
  const factory = useContext(InformerFactoryContext);
  return useMemo(() => {
    if (isInformer(source)) return source;
    if (factory === null) throw new InformerProviderMissingError(hook);
    return factory.informerFor(source);
  }, [factory, source, hook]);
}
