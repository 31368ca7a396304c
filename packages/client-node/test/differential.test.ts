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
import { apiChurn, buildClientGoPeer, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { body, blinder, convergence, resyncPass, startSides, writer } from './differentialSides.ts';
import { compareSequences, keySequences, showDifferences } from './handlerSequences.ts';

const real = serverKinds().includes('real');
const RESYNC_MS = 2000;
const CUT = 'a delete and recreate while the watches are cut';
const COMPACTION = 'a compaction and a restart while blind: 410, relist';

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

      const sides = await startSides(server, ns, { watchList, resyncMs: RESYNC_MS });
      cleanups.push(sides.close);
      const converge = convergence(server, path, sides);
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
      await resyncPass(sides, wanted.length, RESYNC_MS);

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
