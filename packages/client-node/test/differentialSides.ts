/**
 * The two sides of the differential tests: rxinformer's informer and client-go's (the client-go
 * peer) on one namespace and label selector of a real kube-apiserver, through the server's one fault
 * proxy; waiting until both handlers reach the server's list; and the writes and faults of a step.
 */
import { expect } from '@jest/globals';
import type { ReflectorStatus } from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { handlerCalls, startClientGoPeer, type ClientGoPeer, type PeerLine, type TestServer } from '@rxinformer/testing/servers';
import { configMaps, createKubeInformerFactory } from '../src/index.ts';
import { keySequences, recordingHandler, viewOfCalls, type HandlerCall } from './handlerSequences.ts';
import { view } from './simHarness.ts';

/** The label selector both sides watch. */
export const SELECTOR = 'differential=in';

/** A configmap inside the selector or outside it. */
export const body = (name: string, inside = true) => ({
  metadata: { name, labels: { differential: inside ? 'in' : 'out' } },
  data: { v: '0' },
});

/** How both sides run: watch-list pinned alike, resync; rxinformer's `maxEmptyWatches`. */
export interface SideOptions {
  readonly watchList: boolean;
  /** Both sides' resync period. Default none. */
  readonly resyncMs?: number;
  /** rxinformer's reflector option. Default the reflector's (3). */
  readonly maxEmptyWatches?: number;
}

/** The two informers under test: rxinformer's and client-go's, on the same namespace and selector. */
export interface Sides {
  readonly rxCalls: HandlerCall[];
  goCalls(): HandlerCall[];
  /** The client-go peer's stderr so far (client-go's klog lines). */
  stderr(): string;
  /** The relists each has made since it started: rxinformer's reflector's count, client-go's lists (or watch-lists) after the first. */
  relists(): { rx: number; go: number };
  /** Stops both; their final caches as `namespace/name=uid@rv`, sorted. */
  stop(): Promise<{ rxStore: string[]; goStore: string[] }>;
  close(): Promise<unknown>;
}

/** Starts both informers through the proxy, as `options` say, and waits until both handlers have synced. */
export async function startSides(server: TestServer, ns: string, options: SideOptions): Promise<Sides> {
  const { watchList, resyncMs, maxEmptyWatches } = options;
  const factory = createKubeInformerFactory(server.kubeConfig(), { namespace: ns, labelSelector: SELECTOR, resyncPeriodMs: resyncMs });
  const informer = factory.informerFor(configMaps, { reflector: { useStreamingList: watchList, maxEmptyWatches } });
  let status: ReflectorStatus | undefined;
  informer.status$.subscribe((s) => (status = s));
  const rxCalls: HandlerCall[] = [];
  const registration = informer.addEventHandler(recordingHandler(rxCalls));
  factory.start();
  let peer: ClientGoPeer;
  try {
    peer = await startClientGoPeer({
      kubeConfig: server.kubeConfig(),
      namespace: ns,
      labelSelector: SELECTOR,
      resyncMs,
      watchList,
      logRequests: true,
    });
  } catch (error) {
    await factory.close();
    throw error;
  }
  const close = async () => {
    peer.kill();
    await factory.close();
  };
  try {
    expect(peer.lines[0]).toMatchObject({ event: 'start', watchList });
    await peer.waitFor((l) => l.event === 'synced', 60_000);
    await until(() => registration.hasSynced(), { timeoutMs: 60_000, intervalMs: 20, what: 'rxinformer’s handler synced' });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    rxCalls,
    goCalls: () => handlerCalls(peer.lines),
    stderr: () => peer.stderr(),
    relists: () => ({ rx: status?.relistCount ?? 0, go: peer.lines.filter(isList).length - 1 }),
    stop: async () => {
      const rxStore = view(informer.getStore().list());
      await factory.close();
      const run = await peer.stop();
      return { rxStore, goStore: (run.store ?? []).map((i) => `${i.key}=${i.uid}@${i.rv}`).sort() };
    },
    close,
  };
}

/** A list, or a watch-list (the initial events, then a watch), the server answered. */
const isList = (l: PeerLine) =>
  l.event === 'request' && l.status === 200 && (!/[?&]watch=true/.test(l.url) || /[?&]sendInitialEvents=true/.test(l.url));

/** Waits for a resync pass on each side: `size` more re-deliveries than so far. */
export async function resyncPass(sides: Sides, size: number, resyncMs: number): Promise<void> {
  const redeliveries = () => [keySequences(sides.rxCalls).redeliveries, keySequences(sides.goCalls()).redeliveries];
  const [rx, go] = redeliveries();
  const passed = () => redeliveries()[0] >= rx + size && redeliveries()[1] >= go + size;
  await until(passed, { timeoutMs: 4 * resyncMs + 10_000, intervalMs: 100, what: 'a resync pass on both sides' });
}

/**
 * A wait, after each step, until both handlers' caches (rebuilt from their calls) equal the
 * server's list of the configmaps of `path` in the selector; resolves to that list as
 * `namespace/name=uid@rv`, sorted.
 */
export function convergence(server: TestServer, path: string, sides: Sides) {
  const listPath = `${path}?labelSelector=${encodeURIComponent(SELECTOR)}`;
  return async (step: string): Promise<string[]> => {
    const want = view((await server.api.get(listPath)).items);
    const same = (have: string[]) => JSON.stringify(have) === JSON.stringify(want);
    try {
      await until(() => same(viewOfCalls(sides.rxCalls)) && same(viewOfCalls(sides.goCalls())), { timeoutMs: 90_000, intervalMs: 50 });
    } catch {
      const show = (name: string, have: string[]) => `${name}:\n  ${have.join('\n  ')}`;
      throw new Error(
        `after "${step}" the handlers did not reach the server's list:\n${[
          show('server', want),
          show('rxinformer', viewOfCalls(sides.rxCalls)),
          show('client-go', viewOfCalls(sides.goCalls())),
        ].join('\n')}`,
      );
    }
    return want;
  };
}

/** A scenario's writes to the configmaps of `path`, through the test's own client. */
export function writer({ api }: TestServer, path: string) {
  let version = 0;
  const move = (name: string, inside: boolean) =>
    api.patch(`${path}/${name}`, { metadata: { labels: { differential: inside ? 'in' : 'out' } } });
  return {
    move,
    update: (name: string) => api.patch(`${path}/${name}`, { data: { v: String(++version) } }),
    remove: (name: string) => api.delete(`${path}/${name}`),
    /** Deleted and created again (a new UID), inside the selector or not. */
    recreate: async (name: string, inside = true) => {
      await api.delete(`${path}/${name}`);
      await api.create(path, body(name, inside));
    },
    /** Out of the selector and back in. */
    outAndIn: async (name: string) => {
      await move(name, false);
      await move(name, true);
    },
    /** Created and deleted. */
    ephemeral: async (name: string) => {
      await api.create(path, body(name));
      await api.delete(`${path}/${name}`);
    },
  };
}

/**
 * Blinds both watches at once (`stall`: open and silent), makes the writes, checks that neither
 * informer watched again meanwhile (both missed every write alike), then `end`s the blindness.
 */
export function blinder({ proxy }: TestServer) {
  return async (write: () => Promise<unknown>, end: () => Promise<unknown>) => {
    await until(() => proxy.open() === 2, { timeoutMs: 30_000, intervalMs: 20, what: 'both informers watching' });
    const watches = proxy.counts.watches;
    expect(proxy.stall()).toBe(2);
    await write();
    expect(proxy.counts.watches).toBe(watches);
    await end();
  };
}
