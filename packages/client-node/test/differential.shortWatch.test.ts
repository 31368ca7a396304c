/**
 * The differential test's "very short watch" case: both watches are blinded while configmaps change
 * (updated twice, deleted, recreated, moved out of and back into the selector, created and deleted,
 * created and updated), then cut, and the watch each side opens next is ended at once by the proxy
 * (the server's headers, an empty body: closed within a second, no event). client-go v0.36.3 takes
 * that for a "very short watch" and relists; rxinformer with `maxEmptyWatches: 1` does the same and
 * must make client-go's handler calls exactly (up to the documented `new-uid-in-relist`); with the
 * default 3 it watches again and its handler hears each change, which only the `very-short-watch`
 * rule allows. With watch-list on and off.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildClientGoPeer, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { blinder, body, convergence, startSides, writer, type Sides } from './differentialSides.ts';
import { compareSequences, DIFFERENCE_RULES, keySequences, showDifferences } from './handlerSequences.ts';

const real = serverKinds().includes('real');
const STEP = 'changes while blind, then watches closed at once';
const REPLAYED = ['created', 'ephemeral', 'fixed-1', 'fixed-2', 'fixed-3', 'fixed-4', 'fixed-5']; // sorted, as the keys are compared

(real ? describe : describe.skip)('rxinformer and client-go after a watch closed at once, on the real server', () => {
  let server: TestServer;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    await buildClientGoPeer();
    server = await startTestServer('real');
  }, START_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
    await server?.close();
  });

  it.each([
    [1, true],
    [1, false],
    [3, true],
    [3, false],
  ])(
    'with maxEmptyWatches %i and watch-list %s: relist as client-go does, or replay each change as documented',
    async (maxEmptyWatches, watchList) => {
      const ns = await server.namespace(`shortwatch-${maxEmptyWatches}-${watchList ? 'watchlist' : 'listwatch'}`);
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      for (let i = 0; i < 6; i++) await server.api.create(path, body(`fixed-${i}`));
      await server.api.create(path, body('outside-0', false));
      const sides = await startSides(server, ns, { watchList, maxEmptyWatches });
      cleanups.push(sides.close);
      const converge = convergence(server, path, sides);
      await converge('the initial list');
      const w = writer(server, path);
      await w.update('fixed-0'); // both watches have an event before they are cut
      await converge('an update');

      const [relists, ended] = [sides.relists(), server.proxy.counts.ended];
      await blinder(server)(
        async () => {
          await w.update('fixed-2');
          await w.update('fixed-2');
          await w.recreate('fixed-1');
          await w.remove('fixed-3');
          await w.move('fixed-4', false);
          await w.outAndIn('fixed-5');
          await w.move('outside-0', true);
          await w.ephemeral('ephemeral');
          await server.api.create(path, body('created'));
          await w.update('created');
        },
        async () => {
          server.proxy.endNextWatches(1, { userAgentContains: 'rxinformer' });
          server.proxy.endNextWatches(1, { userAgentContains: 'clientgo-peer' });
          server.proxy.cut();
        },
      );
      const wanted = await converge(STEP);
      const now = sides.relists();
      expect(server.proxy.counts.ended - ended).toBe(2); // one watch of each side
      expect(sides.stderr()).toMatch(/very short watch/); // client-go's reflector said so
      expect({ rx: now.rx - relists.rx, go: now.go - relists.go }).toEqual({ rx: maxEmptyWatches === 1 ? 1 : 0, go: 1 });

      const { rxStore, goStore } = await sides.stop();
      expect({ rx: rxStore, go: goStore }).toEqual({ rx: wanted, go: wanted });
      const { applied, strict } = compare(sides);
      console.log(`maxEmptyWatches ${maxEmptyWatches}, watch-list ${watchList}: rules applied ${JSON.stringify(applied)}`);
      if (maxEmptyWatches === 1) {
        // client-go's calls, but for the recreated object's documented difference.
        expect(strict).toBe('');
        expect(applied).toEqual({ 'new-uid-in-relist': 1 });
      } else {
        // Each replayed key differs from client-go's, and only as the rule allows.
        expect(strict.match(/^\S+(?= \(">")/gm)).toEqual(REPLAYED.map((name) => `${ns}/${name}`));
        expect(applied).toEqual({ 'very-short-watch': REPLAYED.length });
      }
    },
    180_000,
  );
});

/**
 * The comparison: `applied` with every documented rule (no difference may remain), `strict` the
 * differences without the very-short-watch rule (as `showDifferences` shows them).
 */
function compare(sides: Sides): { applied: Readonly<Record<string, number>>; strict: string } {
  const rx = keySequences(sides.rxCalls);
  const go = keySequences(sides.goCalls());
  const all = compareSequences(rx, go);
  expect(showDifferences(all.differences)).toBe('');
  const strict = compareSequences(
    rx,
    go,
    DIFFERENCE_RULES.filter((r) => r.name !== 'very-short-watch'),
  );
  return { applied: all.applied, strict: showDifferences(strict.differences) };
}
