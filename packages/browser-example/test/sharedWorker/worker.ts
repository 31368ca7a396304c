/**
 * The SharedWorker of the browser tests and the transfer bench: a factory of informers over
 * `fetchListerWatcher` (to the page server's origin, which proxies the API), served to every tab
 * over the channel. With `?mode=snapshot` (the bench's other contender) it serves no channel: it
 * posts each new store of its pods informer, whole, to every tab.
 */
import { auditTime, filter } from 'rxjs';
import { createInformerFactory, fetchListerWatcher, type InformerFactory } from '@rxinformer/core';
import { hostInformers, type WorkerScopeLike } from '@rxinformer/core/channel';
import { PODS } from './resources.ts';

const scope = self as unknown as WorkerScopeLike & { location: Location };
const makeFactory = (): InformerFactory =>
  createInformerFactory((resource, where) => fetchListerWatcher({ baseUrl: scope.location.origin, resource, ...where }));

if (new URL(scope.location.href).searchParams.get('mode') === 'snapshot') serveSnapshots(makeFactory());
else hostInformers(scope, makeFactory);

/** Posts the pods informer's store, as an array of its objects, to every tab: once synced, then after each change (once per task). */
function serveSnapshots(factory: InformerFactory): void {
  const pods = factory.informerFor(PODS);
  factory.start();
  const ports: MessagePort[] = [];
  scope.addEventListener('connect', (event) => {
    const port = event.ports[0];
    ports.push(port);
    if (pods.hasSynced()) port.postMessage(pods.getStore().list());
  });
  pods.store$
    .pipe(
      filter(() => pods.hasSynced()),
      auditTime(0),
    )
    .subscribe((store) => {
      const objects = store.list();
      for (const port of ports) port.postMessage(objects);
    });
}
