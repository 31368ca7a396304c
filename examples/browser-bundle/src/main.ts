// Live pods in a web page: @rxinformer/core's fetch ListerWatcher against the page's own origin
// (which forwards /api to the cluster, as `kubectl proxy` or an app's backend would), bundled by
// esbuild for browsers.
import { createSharedInformer, fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { auditTime } from 'rxjs';

interface Pod extends KubeObject {
  status?: { phase?: string };
}

const pods: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const informer = createSharedInformer(fetchListerWatcher<Pod>({ baseUrl: location.origin, resource: pods, namespace: 'default' }));

const table = document.querySelector<HTMLTableSectionElement>('#pods')!;
const status = document.querySelector<HTMLElement>('#status')!;

informer.store$.pipe(auditTime(50)).subscribe((store) => {
  const rows = [...store.list()].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  table.replaceChildren(
    ...rows.map((pod) => {
      const tr = document.createElement('tr');
      tr.dataset.name = pod.metadata?.name;
      for (const text of [pod.metadata?.name ?? '', pod.status?.phase ?? '']) tr.insertCell().textContent = text;
      return tr;
    }),
  );
});
informer.status$.subscribe((s) => {
  status.textContent = `${s.phase}${s.lastError ? `: ${s.lastError.name}: ${s.lastError.message}` : ''}`; // the name survives --minify
  status.dataset.phase = s.phase;
});
informer.start();
