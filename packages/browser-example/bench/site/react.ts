/**
 * The bench's React page: `@rxinformer/react` hooks over the page's informers (`?mode=` and
 * `?view=` as the plain page), a summary of pods by phase and node, and the first 100 pods as
 * memoized rows, under a `<Profiler>` that counts commits on `window.bench.commits`.
 */
import { createElement as h, memo, Profiler, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import type { KubeObject } from '@rxinformer/core';
import { InformerProvider, useHasSynced, useList } from '@rxinformer/react';
import { benchInformers, modeOf } from './factories.ts';
import { startProbe } from './probe.ts';
import { NODES, PODS, viewOf, type BenchTab } from './resources.ts';

const tab: BenchTab = {
  probe: startProbe(),
  synced: () => false,
  held: () => ({ pods: 0, nodes: 0 }),
  samplePod: () => undefined,
  relists: () => 0,
  commits: 0,
};
(window as unknown as { bench: BenchTab }).bench = tab;
addEventListener('error', (e) => (tab.error ??= String(e.message)));

const mode = modeOf(location.search);
const informers = benchInformers(mode === 'none' ? 'worker' : mode, viewOf(location.search), tab)!;
const podsResource = informers.form(PODS);
const nodesResource = informers.form(NODES);
const pods = informers.factory.informerFor(podsResource);
const nodes = informers.factory.informerFor(nodesResource);
tab.synced = () => informers.factory.hasSynced();
tab.held = () => ({ pods: pods.getStore().size, nodes: nodes.getStore().size });
tab.samplePod = () => pods.getStore().list()[0];
tab.relists = () => pods.getStatus().relistCount + nodes.getStatus().relistCount;

type Pod = KubeObject & { status?: { phase?: string } };

const Row = memo(function Row({ pod }: { pod: Pod }) {
  return h('tr', null, h('td', null, pod.metadata?.namespace), h('td', null, pod.metadata?.name), h('td', null, pod.status?.phase ?? ''));
});

function Pods() {
  const all = useList(pods) as readonly Pod[];
  const nodeList = useList(nodes);
  const synced = useHasSynced(pods);
  const phases = useMemo(() => {
    const count: Record<string, number> = {};
    for (const pod of all) count[pod.status?.phase ?? '-'] = (count[pod.status?.phase ?? '-'] ?? 0) + 1;
    return Object.entries(count)
      .map(([phase, n]) => `${phase} ${n}`)
      .join(', ');
  }, [all]);
  return h(
    'div',
    null,
    h('p', null, synced ? `${all.length} pods (${phases}) on ${nodeList.length} nodes` : 'loading…'),
    h('table', null, h('tbody', null, ...all.slice(0, 100).map((pod) => h(Row, { key: pod.metadata?.uid, pod })))),
  );
}

const counted = () => (tab.commits = (tab.commits ?? 0) + 1);
createRoot(document.getElementById('root')!).render(
  h(StrictMode, null, h(InformerProvider, { factory: informers.factory }, h(Profiler, { id: 'pods', onRender: counted }, h(Pods)))),
);
