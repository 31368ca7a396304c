/**
 * The differential test (issue 26): client-go v0.36.3's shared informer (the client-go peer) and
 * rxinformer's watch the same configmaps of a real kube-apiserver through one fault proxy, through one
 * scripted scenario: an initial list, churn, objects moving in and out of the label selector, a
 * delete and recreate under one name (and other writes) while both watches are cut, then the same
 * and more across an etcd compaction and an apiserver restart while they are blind (410, relist), a
 * plain restart, resync on throughout. Each step waits until both handlers have reached the
 * server's list before the next. Then both final caches must equal the server's, and for every key
 * both must have delivered the same events, or differ only as a rule of handlerSequences.ts
 * (docs/concept-map.md) allows. With watch-list on and off, pinned alike on both sides.
 *
 * One proxy for both: `stall()` blinds both watches at once (each stays open, nothing passes), so
 * the writes of a blind step are missed by both alike; `cut()` then ends both.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReflectorStatus } from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import {
  apiChurn,
  buildClientGoPeer,
  handlerCalls,
  serverKinds,
  START_TIMEOUT_MS,
  startClientGoPeer,
  startTestServer,
  type ClientGoPeer,
  type PeerLine,
  type TestServer,
} from '@rxinformer/testing/servers';
import { configMaps, createKubeInformerFactory } from '../src/index.ts';
import { compareSequences, keySequences, recordingHandler, showDifferences, viewOfCalls, type HandlerCall } from './handlerSequences.ts';
import { view } from './simHarness.ts';

const real = serverKinds().includes('real');
const SELECTOR = 'differential=in';
const RESYNC_MS = 2000;
const CUT = 'a delete and recreate while the watches are cut';
const COMPACTION = 'a compaction and a restart while blind: 410, relist';

/** A configmap inside the selector or outside it. */
const body = (name: string, inside = true) => ({ metadata: { name, labels: { differential: inside ? 'in' : 'out' } }, data: { v: '0' } });

(real ? describe : describe.skip)('rxinformer and client-go through one scenario on the real server', () => {
  let server: TestServer;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    await buildClientGoPeer(); // nothing when `npm run testenv:build` has built it
    server = await startTestServer('real');
  }, START_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
    await server?.close();
  });

  it.each([true, false])(
    'should deliver the same events per key, or differ only as documented, with watch-list %s',
    async (watchList) => {
      const ns = await server.namespace(`differential-${watchList ? 'watchlist' : 'listwatch'}`);
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const churn = apiChurn(server.api, { collections: [path], make: (name) => body(name), seed: 26 });
      await churn.seed(8);
      for (let i = 0; i < 11; i++) await server.api.create(path, body(`fixed-${i}`));
      for (let i = 0; i < 3; i++) await server.api.create(path, body(`outside-${i}`, false));

      const sides = await startSides(server, ns, watchList);
      cleanups.push(sides.close);
      const converge = convergence(server, `${path}?labelSelector=${encodeURIComponent(SELECTOR)}`, sides);
      await converge('the initial list');
      const steps: Record<string, { ms: number; rxRelists: number; goRelists: number }> = {};
      for (const [step, run] of scenario(server, path, churn)) {
        const [started, relists] = [performance.now(), sides.relists()];
        await run();
        await converge(step);
        const now = sides.relists();
        steps[step] = { ms: Math.round(performance.now() - started), rxRelists: now.rx - relists.rx, goRelists: now.go - relists.go };
      }
      const wanted = await converge('the end');
      await resyncPass(sides, wanted.length);

      const { rxStore, goStore } = await sides.stop();
      expect({ rx: rxStore, go: goStore }).toEqual({ rx: wanted, go: wanted });
      const rx = keySequences(sides.rxCalls);
      const go = keySequences(sides.goCalls());
      const { differences, applied } = compareSequences(rx, go);
      console.log(
        `watch-list ${watchList}: ${sides.rxCalls.length} rxinformer calls (${rx.redeliveries} re-deliveries), ` +
          `${sides.goCalls().length} client-go calls (${go.redeliveries}), rules applied ${JSON.stringify(applied)}, ` +
          `steps: ${Object.entries(steps)
            .map(([name, t]) => `${name} ${t.ms} ms, relists ${t.rxRelists} and ${t.goRelists}`)
            .join('; ')}`,
      );
      expect(showDifferences(differences)).toBe('');
      expect(rx.redeliveries > 0 && go.redeliveries > 0).toBe(true);
      // The scenario did what it says: the cut was resumed by watching again, the compaction and
      // restart made both relist, and its recreation is the difference that followed.
      expect(steps[CUT]).toMatchObject({ rxRelists: 0, goRelists: 0 });
      expect(steps[COMPACTION].rxRelists > 0 && steps[COMPACTION].goRelists > 0).toBe(true);
      expect(applied['new-uid-in-relist']).toBe(1);
    },
    300_000,
  );
});

/** The two informers under test: rxinformer's and client-go's, on the same namespace and selector. */
interface Sides {
  readonly rxCalls: HandlerCall[];
  goCalls(): HandlerCall[];
  /** The relists each has made since it started: rxinformer's reflector's count, client-go's lists (or watch-lists) after the first. */
  relists(): { rx: number; go: number };
  /** Stops both; their final caches as `namespace/name=uid@rv`, sorted. */
  stop(): Promise<{ rxStore: string[]; goStore: string[] }>;
  close(): Promise<unknown>;
}

/** Starts both informers through the proxy, with watch-list pinned to `watchList`, and waits until both handlers have synced. */
async function startSides(server: TestServer, ns: string, watchList: boolean): Promise<Sides> {
  const factory = createKubeInformerFactory(server.kubeConfig(), { namespace: ns, labelSelector: SELECTOR, resyncPeriodMs: RESYNC_MS });
  const informer = factory.informerFor(configMaps, { reflector: { useStreamingList: watchList } });
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
      resyncMs: RESYNC_MS,
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
async function resyncPass(sides: Sides, size: number): Promise<void> {
  const redeliveries = () => [keySequences(sides.rxCalls).redeliveries, keySequences(sides.goCalls()).redeliveries];
  const [rx, go] = redeliveries();
  const passed = () => redeliveries()[0] >= rx + size && redeliveries()[1] >= go + size;
  await until(passed, { timeoutMs: 4 * RESYNC_MS + 10_000, intervalMs: 100, what: 'a resync pass on both sides' });
}

/**
 * A wait, after each step, until both handlers' caches (rebuilt from their calls) equal the
 * server's list of `listPath`; resolves to that list as `namespace/name=uid@rv`, sorted.
 */
function convergence(server: TestServer, listPath: string, sides: Sides) {
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

/** The scripted steps after the initial list: each a name and its writes (and faults). */
function scenario(server: TestServer, path: string, churn: ReturnType<typeof apiChurn>): [string, () => Promise<unknown>][] {
  const w = writer(server, path);
  const blind = blinder(server);
  return [
    ['churn', () => churn.run({ count: 40, concurrency: 3, mix: { create: 2, update: 5, delete: 2, recreate: 2 } }).done],
    [
      'moves in and out of the selector',
      async () => {
        await w.move('fixed-0', false);
        await w.move('outside-0', true);
        await w.update('fixed-0'); // outside: nobody hears of it
        await w.move('fixed-0', true);
        await w.update('outside-0');
      },
    ],
    [
      CUT,
      () =>
        blind(
          async () => {
            await w.recreate('fixed-1');
            await w.update('fixed-2');
            await w.outAndIn('fixed-8');
            await w.ephemeral('ephemeral-1');
          },
          async () => server.proxy.cut(),
        ),
    ],
    [
      COMPACTION,
      () =>
        blind(
          async () => {
            await w.recreate('fixed-3');
            await w.remove('fixed-4');
            await w.update('fixed-5');
            await w.move('fixed-6', false);
            await w.move('outside-1', true);
            await w.outAndIn('fixed-9');
            await w.recreate('fixed-10', false); // now outside the selector
            await w.ephemeral('ephemeral-2'); // nobody hears of it
          },
          async () => {
            await server.compact();
            await server.restart();
            server.proxy.cut();
          },
        ),
    ],
    [
      'a restart',
      async () => {
        await server.restart();
        await w.update('fixed-7');
        await w.move('outside-2', true);
      },
    ],
  ];
}

/** The scenario's writes to the configmaps of `path`, through the test's own client. */
function writer({ api }: TestServer, path: string) {
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
function blinder({ proxy }: TestServer) {
  return async (write: () => Promise<unknown>, end: () => Promise<unknown>) => {
    await until(() => proxy.open() === 2, { timeoutMs: 30_000, intervalMs: 20, what: 'both informers watching' });
    const watches = proxy.counts.watches;
    expect(proxy.stall()).toBe(2);
    await write();
    expect(proxy.counts.watches).toBe(watches);
    await end();
  };
}
