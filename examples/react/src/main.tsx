import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createInformerFactory, fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { InformerProvider, useHasSynced, useInformerStatus, useList, useStoreSelector } from '@rxinformer/react';

interface Pod extends KubeObject {
  status?: { phase?: string };
}

const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

// This page's origin forwards /api and /apis to the cluster: kubectl proxy, or your backend.
const factory = createInformerFactory((resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }));

function Pods() {
  const pods = useList(podsResource);
  const running = useStoreSelector(podsResource, (store) => store.list().filter((pod) => pod.status?.phase === 'Running').length);
  const status = useInformerStatus(podsResource);
  if (!useHasSynced(podsResource)) return <p>{status.phase}: loading…</p>;
  return (
    <>
      <p id="summary">
        {status.phase}: {running} of {pods.length} pods running
      </p>
      <ul>
        {pods.map((pod) => (
          <li key={pod.metadata?.uid}>
            {pod.metadata?.namespace}/{pod.metadata?.name} {pod.status?.phase}
          </li>
        ))}
      </ul>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <InformerProvider factory={factory}>
      <Pods />
    </InformerProvider>
  </StrictMode>,
);
