/**
 * A tab of the browser tests and the transfer bench. By default: informers of pods and configmaps
 * over the SharedWorker's channel (`connectInformerWorker`). With `?mode=snapshot`: the worker's
 * whole store of pods, as it posts it. Either way it reports on `window.tab` what the test reads.
 */
import { connectInformerWorker } from '@rxinformer/core/channel';
import { CONFIGMAPS, PODS } from './resources.ts';

/** What the test and the bench read from the page. */
interface Tab {
  /** True once every informer has synced (snapshot mode: the first store arrived). */
  synced(): boolean;
  /** The keys of the pods held, sorted. */
  pods(): string[];
  /** The keys of the configmaps held, sorted (none in snapshot mode). */
  configMaps(): string[];
  /** When each pod key first arrived (`Date.now()`). */
  readonly arrivals: Record<string, number>;
  /** Changes received: deltas of the pods informer, or snapshots. */
  updates: number;
  /** An error of the worker, if any. */
  error?: string;
}

const query = new URLSearchParams(location.search);
const mode = query.get('mode') ?? 'channel';
const worker = new SharedWorker(`/informers.worker.js${mode === 'snapshot' ? '?mode=snapshot' : ''}`, { type: 'module', name: mode });
const tab: Tab = { synced: () => false, pods: () => [], configMaps: () => [], arrivals: {}, updates: 0 };
(window as unknown as { tab: Tab }).tab = tab;
worker.addEventListener('error', (e) => (tab.error = String((e as ErrorEvent).message ?? e)));

const keyOf = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata?.namespace}/${o.metadata?.name}`;

if (mode === 'snapshot') {
  let latest: { metadata?: { namespace?: string; name?: string } }[] | undefined;
  worker.port.addEventListener('message', (event: MessageEvent) => {
    latest = event.data as typeof latest;
    tab.updates++;
    const now = Date.now();
    for (const o of latest ?? []) tab.arrivals[keyOf(o)] ??= now;
  });
  worker.port.start();
  tab.synced = () => latest !== undefined;
  tab.pods = () => (latest ?? []).map(keyOf).sort();
} else {
  const factory = connectInformerWorker(worker);
  // `?freeze=false`: the tab's pods are its own clones, left unfrozen (the bench's third row).
  const pods = factory.informerFor(PODS, { freeze: query.get('freeze') !== 'false' });
  const configMaps = factory.informerFor(CONFIGMAPS);
  pods.events$.subscribe((d) => {
    tab.updates++;
    tab.arrivals[d.key] ??= Date.now();
  });
  factory.start();
  tab.synced = () => factory.hasSynced();
  tab.pods = () => [...pods.getStore().keys()].sort();
  tab.configMaps = () => [...configMaps.getStore().keys()].sort();
}
