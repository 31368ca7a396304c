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

// A history of 50,000 events (the default keeps 4,096: 23 s at 180 writes/s): a page that takes
// longer than that to list 30,000 pods from the worker could never resume its watch, and relists.
const historySize = 50_000;
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
  { historySize },
);
