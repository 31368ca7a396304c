/**
 * The three contenders every side-by-side metric drives, each against the simulator over HTTP:
 *   - rxinformer: a shared informer over the KubeConfig ListerWatcher (a streaming list, its default;
 *     pinned at a resourceVersion, pages of 500);
 *   - client-node: 2.x `makeInformer(kc, '/api/v1/pods', listFn)` (one unpaginated list, model classes);
 *   - limit: the same pages rxinformer fetches, through the same transport, `JSON.parse` only.
 * Each resolves once the whole list is in and returns a handle that keeps what it cached alive
 * until `close()` (the heap metrics measure it before closing).
 */
import { CoreV1Api, makeInformer, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  createSharedInformer,
  metadataOnly,
  projected,
  tableRows,
  type HandlerRegistration,
  type KubeObject,
  type ListerWatcher,
  type ListPage,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { PRESETS } from '@rxinformer/core/projection';
import { createProbes, informerMetrics } from '@rxinformer/prometheus';
import { createKubeInformerFactory, createKubeTransport, kubeConfigListerWatcher, pods, type KubeTransport } from '@rxinformer/client-node';

/** A synced contender: when its list was in, how many objects it holds, and how to stop it. */
export interface Synced {
  /** `performance.now()` when the last object of the initial list was in. */
  readonly syncedAt: number;
  /** Objects held. */
  readonly count: number;
  close(): Promise<void>;
}

/** Callbacks counting what a contender's handler receives after the initial list. */
export interface Watching {
  /** Called for every update delivered to the handler. */
  onUpdate?: () => void;
}

/** Options shared by the contenders. */
export interface ContenderOptions extends Watching {
  /** List at this resourceVersion (`Exact`) instead of the newest, so the watch replays what came after. */
  listAt?: string;
  /** rxinformer only: the transform applied before storing. */
  transform?: (obj: KubeObject) => KubeObject;
  /** rxinformer only: `false` stores objects unfrozen (the informer's `freeze` option). Default true. */
  freeze?: boolean;
  /** rxinformer only: a metadata-only informer (`metadataOnly(pods)`). */
  metadataOnly?: boolean;
  /** rxinformer only: an informer of the pods preset's projection (`projected(pods, PRESETS.pods)`). */
  projected?: boolean;
  /** rxinformer only: an informer of the server's Table rows (`tableRows(pods)`). */
  tableRows?: boolean;
  /** rxinformer only: with its informer and handler metrics registered (and scraped) in a registry of its own. */
  metrics?: boolean;
  /** rxinformer only, unpinned: the reflector's `useStreamingList` (default: its default, streaming). */
  useStreamingList?: boolean;
}

/** The pods resource in the form a contender's options ask for: whole, metadata, projected, Table rows. */
function podsAs(options: ContenderOptions): ResourceDescriptor {
  if (options.metadataOnly) return metadataOnly(pods);
  if (options.projected) return projected(pods, PRESETS.pods) as ResourceDescriptor;
  return options.tableRows ? tableRows(pods) : pods;
}

/** The transform of `heapPerObjectTransformed`: the object without `metadata.managedFields`. */
export function dropManagedFields(obj: KubeObject): KubeObject {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** `lw` with its first list page pinned at `rv` (`resourceVersionMatch=Exact`); continued pages follow the token. */
export function listingAt<T extends KubeObject>(lw: ListerWatcher<T>, rv: string): ListerWatcher<T> {
  return { list: (o) => lw.list(o.continue ? o : { ...o, resourceVersion: rv, resourceVersionMatch: 'Exact' }), watch: (o) => lw.watch(o) };
}

/** rxinformer: the informer factory's pod informer (or, pinned, a shared informer over the same ListerWatcher), synced. */
export async function rxinformerSynced(kc: KubeConfig, options: ContenderOptions = {}): Promise<Synced> {
  let informer: SharedInformer<KubeObject>;
  let stop: () => Promise<void>;
  if (options.listAt === undefined) {
    const factory = createKubeInformerFactory(kc, { transform: options.transform });
    const own = options.useStreamingList === undefined ? {} : { reflector: { useStreamingList: options.useStreamingList } };
    informer = factory.informerFor(podsAs(options), own) as unknown as SharedInformer<KubeObject>;
    if (options.onUpdate) informer.addEventHandler({ onUpdate: options.onUpdate });
    factory.start();
    await factory.waitForCacheSync();
    stop = () => factory.close();
  } else {
    const transport = createKubeTransport(kc);
    informer = createSharedInformer(listingAt(kubeConfigListerWatcher(kc, { resource: pods, transport }), options.listAt), {
      transform: options.transform,
      freeze: options.freeze,
      // A list pinned at a revision pages: a streaming list starts at the newest one.
      reflector: { useStreamingList: false },
    });
    const handler = informer.addEventHandler({ onAdd: () => {}, ...(options.onUpdate ? { onUpdate: options.onUpdate } : {}) });
    const metrics = options.metrics ? wireMetrics(informer, handler) : undefined;
    informer.start();
    // The handler's own sync: its last initial add delivered (what client-node's N-th `add` is).
    await new Promise<void>((resolve) => {
      const sub = handler.synced$.subscribe((s) => {
        if (s) {
          resolve();
          queueMicrotask(() => sub.unsubscribe());
        }
      });
    });
    stop = async () => {
      metrics?.stop();
      informer.stop();
      await transport.close();
    };
  }
  return { syncedAt: performance.now(), count: informer.getStore().size, close: stop };
}

/**
 * What an operator wires in production: the informer's and its handler's metrics in a registry,
 * scraped every 100 ms (a scrape every 15 s is usual: this is the worst case), and the probes.
 */
function wireMetrics(informer: SharedInformer<KubeObject>, handler: HandlerRegistration): { stop(): void } {
  const registry = new Registry();
  const registration = informerMetrics(informer, { name: 'v1/pods', registry, handlers: [handler] });
  const probes = createProbes({ informers: { 'v1/pods': informer } });
  const scrapes = setInterval(() => {
    void registry.metrics();
    probes.healthz();
  }, 100);
  return {
    stop: () => {
      clearInterval(scrapes);
      probes.close();
      registration.unregister();
    },
  };
}

/** client-node: `makeInformer` over `listPodForAllNamespaces`, synced when its N-th `add` fired. */
export async function clientNodeSynced(kc: KubeConfig, expected: number, options: ContenderOptions = {}): Promise<Synced> {
  const core = kc.makeApiClient(CoreV1Api);
  const listAt = options.listAt;
  const listFn = () => core.listPodForAllNamespaces(listAt === undefined ? {} : { resourceVersion: listAt, resourceVersionMatch: 'Exact' });
  const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', listFn);
  let added = 0;
  let stopping = false;
  let syncedAt = 0;
  const synced = new Promise<void>((resolve, reject) => {
    informer.on('add', () => {
      if (++added === expected) {
        syncedAt = performance.now();
        resolve();
      }
    });
    // stop() aborts its watch, which it reports as an error: only errors before that count.
    informer.on('error', (e) => {
      if (!stopping) reject(e instanceof Error ? e : new Error(String(e)));
    });
  });
  if (options.onUpdate) informer.on('update', options.onUpdate);
  try {
    await Promise.race([informer.start(), synced]);
    await synced;
  } catch (e) {
    stopping = true;
    await informer.stop();
    throw e;
  }
  return {
    syncedAt,
    count: added,
    close: async () => {
      stopping = true;
      await informer.stop();
    },
  };
}

/**
 * Every page of `/api/v1/pods?limit=500…`, parsed; `keep` holds the items (for the heap metric).
 * `query` joins the first page's query (e.g. `resourceVersion=12&resourceVersionMatch=Exact`).
 */
export async function pagesParsed(transport: KubeTransport, keep?: KubeObject[], query?: string): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const page = await transport.getJson<ListPage>(
      `/api/v1/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : query ? `&${query}` : ''}`,
    );
    count += page.items.length;
    if (keep) for (const item of page.items) keep.push(item);
    token = page.metadata?.continue;
  } while (token);
  return count;
}

/** The limit: the same pages as rxinformer, `JSON.parse`d, the items kept in one array. */
export async function limitSynced(kc: KubeConfig): Promise<Synced & { items: KubeObject[] }> {
  const transport = createKubeTransport(kc);
  const items: KubeObject[] = [];
  const count = await pagesParsed(transport, items);
  return { syncedAt: performance.now(), count, items, close: () => transport.close() };
}

/** Rejects with a clear error when `promise` takes longer than `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
