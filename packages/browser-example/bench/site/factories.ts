/**
 * The informers of a bench page, by mode: on the main thread over `fetchListerWatcher` (its own
 * watches) or over a dashboard hub's WebSocket (`?hub=ws://…/hub`), or in a dedicated Worker / a
 * SharedWorker with the page's informers a mirror fed over the channel.
 */
import { createInformerFactory, fetchListerWatcher, metadataOnly, type InformerFactory, type ResourceDescriptor } from '@rxinformer/core';
import { connectInformerWorker } from '@rxinformer/core/channel';
import { hubListerWatcherSource } from '@rxinformer/hub/browser';
import { inForm, type BenchTab, type View } from './resources.ts';

/** Where the informers run: nowhere (the baseline), the main thread (own watches, or through a hub), a Worker, a SharedWorker. */
export type Mode = 'none' | 'main' | 'hub' | 'worker' | 'shared';

/** The page's factory and the descriptors its informers are asked for. */
export interface BenchInformers {
  readonly factory: InformerFactory;
  /** `resource` as the page asks for it: through a worker, full or metadata (the worker projects). */
  form(resource: ResourceDescriptor): ResourceDescriptor;
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
  if (mode === 'worker') {
    const worker = new Worker(url, { type: 'module' });
    worker.addEventListener('error', (e) => fail(`worker: ${e.message}`));
    factory = connectInformerWorker(worker);
  } else {
    const worker = new SharedWorker(url, { type: 'module', name: view });
    worker.addEventListener('error', () => fail('the shared worker failed'));
    factory = connectInformerWorker(worker);
  }
  return { factory, form: (resource) => (view === 'metadata' ? metadataOnly(resource) : resource) };
}
