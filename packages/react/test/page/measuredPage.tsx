// The page of the Chromium test: live pods under StrictMode, with what the test reads on `window.rx`:
// React commits (a <Profiler>), animation frames, events received, each row's renders, and a
// switch that unmounts and mounts the provider. `?grace=ms` sets the factory's releaseGraceMs.
import { memo, Profiler, StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createInformerFactory, fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { InformerProvider, useHasSynced, useInformerStatus, useList } from '@rxinformer/react';

interface Pod extends KubeObject {
  status?: { phase?: string };
}

/** What the test reads and drives. */
export interface PageProbe {
  /** React commits of the whole tree. */
  commits: number;
  /** Animation frames since the page loaded. */
  frames: number;
  /** Deltas the pods informer applied. */
  events: number;
  /** Renders of each pod's row, by key. */
  rowRenders: Record<string, number>;
  /** Whether the factory runs. */
  running(): boolean;
  /** Mounts (true) or unmounts (false) the provider and everything under it. */
  show(shown: boolean): void;
}

const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const grace = Number(new URLSearchParams(location.search).get('grace') ?? 5000);
const factory = createInformerFactory((resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }), {
  releaseGraceMs: grace,
});

const probe: PageProbe = {
  commits: 0,
  frames: 0,
  events: 0,
  rowRenders: {},
  running: () => factory.isRunning(),
  show: () => undefined,
};
(window as unknown as { rx: PageProbe }).rx = probe;
const countFrames = () => {
  probe.frames++;
  requestAnimationFrame(countFrames);
};
requestAnimationFrame(countFrames);
factory.informerFor(podsResource).events$.subscribe(() => probe.events++);

const keyOf = (pod: Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;

const Row = memo(function Row({ pod }: { pod: Pod }) {
  const key = keyOf(pod);
  probe.rowRenders[key] = (probe.rowRenders[key] ?? 0) + 1;
  return (
    <tr data-key={key} data-phase={pod.status?.phase}>
      <td>{key}</td>
      <td className="phase">{pod.status?.phase}</td>
    </tr>
  );
});

function Pods() {
  const pods = useList(podsResource);
  const status = useInformerStatus(podsResource);
  const synced = useHasSynced(podsResource);
  return (
    <>
      <p id="status" data-phase={status.phase} data-synced={String(synced)}>
        {status.phase} · {pods.length} pods
      </p>
      <table>
        <tbody id="pods">
          {pods.map((pod) => (
            <Row key={pod.metadata?.uid} pod={pod} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function App() {
  const [shown, setShown] = useState(true);
  probe.show = setShown;
  return shown ? (
    <InformerProvider factory={factory}>
      <Pods />
    </InformerProvider>
  ) : (
    <p id="hidden">hidden</p>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Profiler id="page" onRender={() => probe.commits++}>
      <App />
    </Profiler>
  </StrictMode>,
);
