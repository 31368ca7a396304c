/**
 * The bench's worker (dedicated or shared): a factory of informers over `fetchListerWatcher` to
 * the page server's origin, served to the page over the channel (`hostInformers`). With
 * `?view=projected` it serves every full resource asked for as its projection (core's preset), so
 * the page's mirror receives and holds the projected objects only.
 */
import {
  createInformerFactory,
  fetchListerWatcher,
  type InformerFactory,
  type InformerForOptions,
  type KubeObject,
  type ResourceDescriptor,
} from '@rxinformer/core';
import { hostInformers, type WorkerScopeLike } from '@rxinformer/core/channel';
import { inForm, viewOf } from './resources.ts';

const scope = self as unknown as WorkerScopeLike & { location: Location };
const view = viewOf(scope.location.search);
// `?batch=` sets the server's batchMs (hostInformers' default without it).
const batch = new URLSearchParams(scope.location.search).get('batch');
// `?json=0`: messages to the page structured-cloned (`1`: JSON strings; without it, the default).
const json = new URLSearchParams(scope.location.search).get('json');

// Three minutes of history (the default keeps 75 s): a page on a loaded machine can take longer
// than that to list 30,000 pods from the worker, and could then not resume its watch: it relists.
const historyMs = 180_000;
hostInformers(
  scope,
  (): InformerFactory => {
    const factory = createInformerFactory((resource, where) => fetchListerWatcher({ baseUrl: scope.location.origin, resource, ...where }));
    if (view !== 'projected') return factory;
    // Every full resource asked for is served as its projection; the page's mirror holds that.
    const informerFor = ((resource: ResourceDescriptor, options?: InformerForOptions<KubeObject>) =>
      factory.informerFor(resource.metadataOnly ? resource : inForm(resource, view), options)) as InformerFactory['informerFor'];
    return { ...factory, informerFor };
  },
  {
    historyMs,
    ...(batch !== null && { batchMs: Number(batch) }),
    ...(json !== null && { encoding: json === '0' ? ('clone' as const) : ('json' as const) }),
  },
);
