/**
 * rxinformer under soak: `createKubeInformerFactory` over the KubeConfig of the server under soak,
 * `informerFor(pods)`, and three handlers of different kinds recording their views: a synchronous
 * FIFO one, an async one that yields before every event, and a coalescing one.
 */
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { DeletedObject, Wire } from '@rxinformer/core';
import type { ReflectorOptions } from '@rxinformer/core/reflector';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';
import { HandlerView, identities } from './convergence.ts';
import { copyStats, countError, emptyStats, type SoakClient } from './soakClient.ts';

/** Options of `rxinformerClient`. */
export interface RxinformerClientOptions {
  /**
   * Reflector options. Default: watches of 3–6 s with 1 s idle grace (a stalled watch is noticed
   * within 7 s) and backoff from 100 ms capped at 1 s, so a soak of seconds sees every recovery.
   */
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
}

/** The reflector settings of a soak (see `RxinformerClientOptions.reflector`). */
export const SOAK_REFLECTOR: Omit<ReflectorOptions, 'scheduler'> = {
  minWatchTimeoutSeconds: 3,
  idleGraceMs: 1000,
  backoff: { initialMs: 100, maxMs: 1000, resetAfterMs: 3000 },
};

/**
 * rxinformer's pod informer over `kc`, with three recording handlers.
 *
 * @example
 * const client = rxinformerClient(server.kubeConfig());
 * await client.start();
 * diffViews(await server.pods(), client.store());
 * await client.close();
 */
export function rxinformerClient(kc: KubeConfig, options: RxinformerClientOptions = {}): SoakClient {
  const factory = createKubeInformerFactory(kc);
  const informer = factory.informerFor(pods, { reflector: options.reflector ?? SOAK_REFLECTOR });
  const stats = emptyStats();
  const views = [new HandlerView('fifo'), new HandlerView('async'), new HandlerView('coalesce')];
  const [fifo, slow, coalesce] = views;
  const record = (view: HandlerView) => ({
    onAdd: (o: Wire<V1Pod>) => view.add(o),
    onUpdate: (old: Wire<V1Pod>, o: Wire<V1Pod>) => view.update(o, old),
    onDelete: ({ lastKnown }: DeletedObject<Wire<V1Pod>>) => lastKnown && view.delete(lastKnown),
  });
  const yieldFirst =
    <A extends unknown[]>(f: (...args: A) => void) =>
    async (...args: A) => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      f(...args);
    };
  const slowHandler = record(slow);
  informer.addEventHandler(record(fifo), { name: 'fifo' });
  informer.addEventHandler(
    { onAdd: yieldFirst(slowHandler.onAdd), onUpdate: yieldFirst(slowHandler.onUpdate), onDelete: yieldFirst(slowHandler.onDelete) },
    { name: 'async' },
  );
  informer.addEventHandler(record(coalesce), { name: 'coalesce', buffer: 'coalesce' });

  let lastError: Error | undefined;
  const subs = [
    informer.status$.subscribe((s) => {
      stats.relists = Math.max(stats.relists, s.relistCount);
      if (s.lastError && s.lastError !== lastError) countError(stats, s.lastError);
      lastError = s.lastError;
    }),
    informer.handlerErrors$.subscribe(() => {
      stats.handlerErrors++;
    }),
  ];

  return {
    library: 'rxinformer',
    views,
    async start() {
      factory.start();
      await factory.waitForCacheSync();
    },
    store: () => identities(informer.getStore().list()),
    stats: () => copyStats(stats),
    async close() {
      for (const s of subs) s.unsubscribe();
      await factory.close();
    },
  };
}
