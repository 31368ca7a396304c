import { provideBrowserGlobalErrorListeners, provideZonelessChangeDetection, type ApplicationConfig } from '@angular/core';
import { provideInformers } from '@rxinformer/angular';
import { fetchListerWatcher, type KubeObject } from '@rxinformer/core';

/** The page never shows managedFields: dropped before caching, they cost no memory. */
function dropManagedFields(object: KubeObject): KubeObject {
  if (object.metadata) delete object.metadata.managedFields;
  return object;
}

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideZonelessChangeDetection(),
    // The page's own origin forwards /api and /apis to the cluster (kubectl proxy, the app's
    // backend, or this example's proxy): no CORS, no token in the browser.
    provideInformers({
      source: (resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }),
      transform: dropManagedFields,
    }),
  ],
};
