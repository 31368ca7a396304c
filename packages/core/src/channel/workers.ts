/**
 * Informers off the UI thread: a (Shared)Worker hosts an informer factory and serves its informers
 * over the channel; each page gets an `InformerFactory` whose informers list and watch through it.
 * With a SharedWorker, every tab of the origin shares one set of watches: one per resource and
 * scope to the API server, whatever the number of tabs.
 *
 *   page ─ new MessageChannel ─ {t: 'rxinformer.connect'} + port ─▶ worker ─ server.serve(port)
 */
import { createInformerFactory, type InformerFactory, type InformerFactoryOptions } from '../informer/informerFactory.ts';
import { InvalidOptionsError } from '../errors.ts';
import { channelListerWatcherSource, type ChannelClientOptions } from './channelListerWatcher.ts';
import { messagePortConnection, type MessagePortConnectionOptions } from './connection.ts';
import { createInformerServer, type InformerServer, type InformerServerOptions } from './informerServer.ts';

/** The message that hands a worker one end of a new connection (its `ports[0]`). */
export const CHANNEL_CONNECT = 'rxinformer.connect';

/** `hostInformers`' default `batchMs`: a page's animation frame. */
export const WORKER_BATCH_MS = 16;

/** What `hostInformers` listens on: a worker's global scope (`self`), Dedicated or Shared. */
export interface WorkerScopeLike {
  /** Listens for `message` (a dedicated worker: the page's connections) or `connect` (a SharedWorker: a tab's port). */
  addEventListener(type: 'message' | 'connect', listener: (event: MessageEvent) => void): void;
}

/** What `connectInformerWorker` posts to: a `Worker`, or a `SharedWorker` (its `port`). */
export type InformerWorker =
  | Pick<Worker, 'postMessage'>
  | {
      /** A SharedWorker's port, which the page's connections are handed over. */
      readonly port: Pick<MessagePort, 'postMessage'>;
    };

/** Options of `hostInformers`: the server's, and how it sends to pages. */
export interface HostInformersOptions extends Omit<InformerServerOptions, 'informerFor'> {
  /**
   * How messages go to pages (`messagePortConnection`'s `encoding`): `json`, one string per message
   * that the page parses, or `clone`, structured clone. Default `json`: at 30,000 pods a page's
   * mirror held 2,813 B per object against 3,528 B cloned (the same main-thread CPU, within noise).
   */
  encoding?: MessagePortConnectionOptions['encoding'];
}

/**
 * In a worker script: makes the factory (`createFactory()`), starts it, and serves its informers
 * to every page that connects (`connectInformerWorker`). A SharedWorker serves every tab from the
 * same informers. `shutdown()` of the result stops the server and the factory.
 *
 * @example
 * // informers.worker.ts, bundled as a module worker
 * hostInformers(self, () => createInformerFactory((resource, scope) =>
 *   fetchListerWatcher({ baseUrl: self.location.origin, resource, ...scope })));
 *
 * Each watch's events go to a page in batches of `batchMs` (default here 16: one message per
 * animation frame), coalesced by key, so the page's main thread handles one message a frame
 * however fast the cluster changes; each message as one JSON string (`encoding`).
 *
 * Caveat: the factory's options (a `transform`) apply to what every page receives; a page's own
 * `transform` and indexers apply in the page, after.
 */
export function hostInformers(
  scope: WorkerScopeLike,
  createFactory: () => InformerFactory,
  options: HostInformersOptions = {},
): InformerServer {
  if (typeof scope?.addEventListener !== 'function') throw new InvalidOptionsError('hostInformers needs the worker scope (self)');
  if (typeof createFactory !== 'function') throw new InvalidOptionsError('hostInformers needs a function that makes the factory');
  const factory = createFactory();
  factory.start();
  const { encoding = 'json', ...serverOptions } = options;
  const server = createInformerServer({
    batchMs: WORKER_BATCH_MS,
    ...serverOptions,
    informerFor: (resource, where) => factory.informerFor(resource, where),
  });
  const onHandoff = (event: MessageEvent): void => {
    const data = event.data as { t?: unknown } | null;
    const port = event.ports?.[0];
    if (data?.t === CHANNEL_CONNECT && port) server.serve(messagePortConnection(port, { encoding }));
  };
  if ('onconnect' in scope) {
    // A SharedWorker: each tab connects once with its own port, and asks for connections over it.
    scope.addEventListener('connect', (event) => {
      const port = event.ports[0];
      port.addEventListener('message', onHandoff);
      port.start();
    });
  } else scope.addEventListener('message', onHandoff);
  return {
    serve: (connection) => server.serve(connection),
    shutdown: () => {
      server.shutdown();
      factory.shutdown();
    },
  };
}

/** Options of `connectInformerWorker`: the page's factory's, and the channel client's. */
export interface ConnectInformerWorkerOptions extends InformerFactoryOptions {
  /** Reconnection backoff, heartbeat and idle timeout of the channel (`scheduler` is the factory's). Default: their defaults. */
  channel?: Omit<ChannelClientOptions, 'scheduler'>;
}

/**
 * In a page: an `InformerFactory` whose informers list and watch through the worker that runs
 * `hostInformers` (a `Worker`, or a `SharedWorker` all tabs share). Each connection is a new
 * `MessageChannel`; a dropped one is replaced, and the informers resume from their resource
 * versions. `shutdown()` also closes the connection.
 *
 * @example
 * const factory = connectInformerWorker(new SharedWorker(new URL('./informers.worker.js', import.meta.url), { type: 'module' }));
 * const pods = factory.informerFor(podsResource);
 * factory.start();
 *
 * Caveat: everything the page receives is structured-cloned from the worker: a page holds its own
 * copy of the objects it watches (the worker holds one for all tabs).
 */
export function connectInformerWorker(worker: InformerWorker, options: ConnectInformerWorkerOptions = {}): InformerFactory {
  const target = worker !== null && typeof worker === 'object' && 'port' in worker ? worker.port : (worker as Pick<Worker, 'postMessage'>);
  if (typeof target?.postMessage !== 'function') throw new InvalidOptionsError('connectInformerWorker needs a Worker or a SharedWorker');
  const { channel, ...factoryOptions } = options;
  const source = channelListerWatcherSource(
    () => {
      const { port1, port2 } = new MessageChannel();
      target.postMessage({ t: CHANNEL_CONNECT }, [port2]);
      return messagePortConnection(port1);
    },
    { ...channel, scheduler: options.scheduler },
  );
  const factory = createInformerFactory(source, factoryOptions);
  return {
    ...factory,
    shutdown: () => {
      factory.shutdown();
      source.close();
    },
  };
}
