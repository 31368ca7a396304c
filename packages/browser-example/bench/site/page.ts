/**
 * A page of the browser bench: the probe, and by `?mode=` no informers (`none`, the baseline) or
 * informers of pods and nodes on the main thread (`main`), in a Worker (`worker`) or a
 * SharedWorker (`shared`); `?view=full|projected|metadata` says what they hold.
 */
import { modeOf, benchInformers } from './factories.ts';
import { startProbe } from './probe.ts';
import { NODES, PODS, viewOf, type BenchTab } from './resources.ts';

const tab: BenchTab = {
  probe: startProbe(),
  synced: () => true,
  held: () => ({ pods: 0, nodes: 0 }),
  samplePod: () => undefined,
  relists: () => 0,
};
(window as unknown as { bench: BenchTab }).bench = tab;
addEventListener('error', (e) => (tab.error ??= String(e.message)));

const informers = benchInformers(modeOf(location.search), viewOf(location.search), tab);
if (informers) {
  const { factory, form } = informers;
  const own = new URLSearchParams(location.search).get('freeze') === '0' ? { freeze: false } : {};
  const pods = factory.informerFor(form(PODS), own);
  const nodes = factory.informerFor(form(NODES), own);
  factory.start();
  tab.synced = () => factory.hasSynced();
  tab.held = informers.held ?? (() => ({ pods: pods.getStore().size, nodes: nodes.getStore().size }));
  tab.samplePod = () => pods.getStore().list()[0];
  tab.relists = () => pods.getStatus().relistCount + nodes.getStatus().relistCount;
}
