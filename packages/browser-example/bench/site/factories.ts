/**
 * The informers of a bench page, by mode: on the main thread over `fetchListerWatcher` (its own
 * watches) or over a dashboard hub's WebSocket (`?hub=ws://…/hub`), or in a dedicated Worker / a
 * SharedWorker with the page's informers a mirror fed over the channel.
 */
import {
  createInformerFactory,
  fetchListerWatcher,
  metadataOnly,
  type InformerFactory,
  type KubeObject,
  type ListerWatcher,
  type ResourceDescriptor,
} from '@rxinformer/core';
import { CHANNEL_CONNECT, channelListerWatcherSource, connectInformerWorker, messagePortConnection } from '@rxinformer/core/channel';
import { filter, map } from 'rxjs';
import { hubListerWatcherSource } from '@rxinformer/hub/browser';
import { inForm, type BenchTab, type View } from './resources.ts';

/** Where the informers run: nowhere (the baseline), the main thread (own watches, or through a hub), a Worker, a SharedWorker. */
export type Mode = 'none' | 'main' | 'hub' | 'worker' | 'shared';

/** The page's factory and the descriptors its informers are asked for. */
export interface BenchInformers {
  readonly factory: InformerFactory;
  /** `resource` as the page asks for it: through a worker, full or metadata (the worker projects). */
  form(resource: ResourceDescriptor): ResourceDescriptor;
  /** The objects held, where the informers' stores do not hold them (the floor pages). */
  held?: () => { pods: number; nodes: number };
}

/** The mode `?mode=` names. */
export function modeOf(search: string): Mode {
  const mode = new URLSearchParams(search).get('mode') ?? 'none';
  if (!['none', 'main', 'hub', 'worker', 'shared'].includes(mode)) throw new Error(`unknown mode ${mode}`);
  return mode as Mode;
}

/** The main thread's factory: its own list and watch requests, or one WebSocket to the hub `?hub=` names. */
function mainFactory(mode: 'main' | 'hub'): InformerFactory {
  if (mode === 'main')
    return createInformerFactory((resource, scope) => fetchListerWatcher({ baseUrl: location.origin, resource, ...scope }));
  const hub = new URLSearchParams(location.search).get('hub');
  if (!hub) throw new Error('mode=hub needs ?hub=ws://…/hub');
  return createInformerFactory(hubListerWatcherSource(hub));
}

/** The page's informers for `mode` and `view`, not started; undefined for `none`. Worker errors go to `tab.error`. */
export function benchInformers(mode: Mode, view: View, tab: BenchTab): BenchInformers | undefined {
  if (mode === 'none') return undefined;
  if (mode === 'main' || mode === 'hub') return { factory: mainFactory(mode), form: (resource) => inForm(resource, view) };
  // The worker's options for experiments (`?batch=`, `?json=`), passed on.
  const passed = [...new URLSearchParams(location.search)].filter(([k]) => k === 'batch' || k === 'json');
  const url = `/worker.js?${new URLSearchParams([['view', view], ...passed]).toString()}`;
  const fail = (what: string) => (tab.error ??= what);
  let factory: InformerFactory;
  let held: BenchInformers['held'];
  if (mode === 'worker') {
    const worker = new Worker(url, { type: 'module' });
    worker.addEventListener('error', (e) => fail(`worker: ${e.message}`));
    const floor = new URLSearchParams(location.search).get('floor');
    if (floor === 'parse' || floor === 'keep') ({ factory, held } = floorFactory(worker, floor));
    else factory = connectInformerWorker(worker);
  } else {
    const worker = new SharedWorker(url, { type: 'module', name: view });
    worker.addEventListener('error', () => fail('the shared worker failed'));
    factory = connectInformerWorker(worker);
  }
  return { factory, held, form: (resource) => (view === 'metadata' ? metadataOnly(resource) : resource) };
}

/**
 * The floor of any mirror of full objects: a factory over the same channel to the same worker
 * whose informers receive every message (each parsed from JSON by the connection) but hold
 * nothing: `parse` drops each object, `keep` keeps it as parsed in a plain Map by key (no
 * freezing, no sharing, no index, no notification). The informers sync on the streamed list's
 * last bookmark with empty stores; `held` counts the Map.
 */
function floorFactory(worker: Worker, floor: 'parse' | 'keep'): Required<Pick<BenchInformers, 'factory' | 'held'>> {
  const kept = new Map<string, KubeObject>();
  const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}/${o.kind ?? ''}`;
  const source = channelListerWatcherSource(() => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ t: CHANNEL_CONNECT }, [port2]);
    return messagePortConnection(port1);
  });
  const take = (o: KubeObject, gone: boolean) => {
    if (floor === 'keep') void (gone ? kept.delete(keyOf(o)) : kept.set(keyOf(o), o));
  };
  const held = () => {
    let pods = 0;
    for (const o of kept.values()) if (o.kind === 'Pod') pods++;
    return { pods, nodes: kept.size - pods };
  };
  const factory = createInformerFactory(<T extends KubeObject>(resource: ResourceDescriptor<T>, scope: Parameters<typeof source>[1]) => {
    const inner = source(resource, scope);
    const lw: ListerWatcher<T> = {
      ...inner,
      list: (o) => inner.list(o).pipe(map((page) => (page.items.forEach((item) => take(item, false)), { ...page, items: [] }))),
      watch: (o) =>
        inner.watch(o).pipe(
          filter((e) => {
            if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return true;
            take(e.object, e.type === 'DELETED');
            return false;
          }),
        ),
    };
    return lw;
  });
  return { factory, held };
}
