/**
 * client-node under soak: `makeInformer` on `/api/v1/pods` with `listPodForAllNamespaces`, restarted
 * from its 'error' event after a delay as its documentation advises, and two recording handlers.
 * client-node's update callback gets only the new object, so a handler's old object is the one its
 * own view holds.
 */
import { CoreV1Api, makeInformer, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { HandlerView, identities } from './convergence.ts';
import { copyStats, countError, emptyStats, type SoakClient } from './soakClient.ts';

/** Options of `clientNodeClient`. */
export interface ClientNodeClientOptions {
  /** Delay before `start()` again after an 'error' event, in ms. Default 5000 (client-node's README example). */
  restartDelayMs?: number;
}

/**
 * client-node's pod informer over `kc` (its server, CA and token), with two recording handlers.
 *
 * @example
 * const client = clientNodeClient(server.kubeConfig(), { restartDelayMs: 1000 });
 * await client.start();
 * await client.close();
 *
 * Caveat: an error during the initial list is reported on 'error' and ends `start()` without a
 * store; the restart loop then lists again.
 */
export function clientNodeClient(kc: KubeConfig, options: ClientNodeClientOptions = {}): SoakClient {
  const restartDelayMs = options.restartDelayMs ?? 5000;
  const core = kc.makeApiClient(CoreV1Api);
  const stats = emptyStats();
  let lists = 0;
  const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', () => {
    lists++;
    stats.relists = Math.max(0, lists - 1);
    return core.listPodForAllNamespaces();
  });
  const views = [new HandlerView('first'), new HandlerView('second')];
  for (const view of views) {
    informer.on('add', (o) => view.add(o));
    informer.on('update', (o) => view.update(o));
    informer.on('delete', (o) => view.delete(o));
  }

  let closed = false;
  let restart: NodeJS.Timeout | undefined;
  const scheduleRestart = () => {
    if (closed || restart) return;
    restart = setTimeout(() => {
      restart = undefined;
      if (closed) return;
      stats.restarts++;
      informer.start().catch((e: unknown) => {
        countError(stats, e);
        scheduleRestart();
      });
    }, restartDelayMs);
  };
  informer.on('error', (e) => {
    if (closed) return; // stop() aborts the watch: an error we caused
    countError(stats, e);
    scheduleRestart();
  });

  return {
    library: 'clientNode',
    views,
    async start() {
      await informer.start();
    },
    store: () => identities(informer.list()),
    stats: () => copyStats(stats),
    async close() {
      closed = true;
      clearTimeout(restart);
      await informer.stop();
    },
  };
}
