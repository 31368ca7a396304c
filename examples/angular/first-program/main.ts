import { Component, provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { informerSignal, injectInformer, provideInformers } from '@rxinformer/angular';
import { fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';

interface Pod extends KubeObject {
  status?: { phase?: string };
}

const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

@Component({
  selector: 'app-root',
  template: `
    <p id="summary">{{ pods.status().phase }}: {{ running() }} of {{ pods.store().size }} pods running</p>
    <ul>
      @for (pod of pods.store().list(); track pod.metadata?.uid) {
        <li>{{ pod.metadata?.namespace }}/{{ pod.metadata?.name }} {{ pod.status?.phase }}</li>
      }
    </ul>
  `,
})
class App {
  readonly pods = injectInformer(podsResource);
  readonly running = informerSignal(this.pods, (store) => store.list().filter((pod) => pod.status?.phase === 'Running').length);
}

bootstrapApplication(App, {
  providers: [
    provideZonelessChangeDetection(),
    // This page's origin forwards /api and /apis to the cluster: kubectl proxy, or your backend.
    provideInformers({ source: (resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }) }),
  ],
}).catch((e: unknown) => console.error(e));
