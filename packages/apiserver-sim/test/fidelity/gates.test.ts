/**
 * Fidelity of what needs servers of its own: feature gates (ShardedListAndWatch on, WatchList off),
 * and 410 Gone after a compaction and after a restart (each server is compacted, then restarted,
 * after the cases that need its history).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { dump } from './dump.ts';
import { seed } from './listCases.ts';
import { noMessage, runCase, type FidelityCase, type Transcript } from './transcript.ts';
import { closeWatchAgents } from './watchStream.ts';

const withReal = serverKinds().includes('real');

/** `f` until it resolves (connections kept from before a restart fail once), for up to 30 s. */
async function retry<T>(f: () => Promise<T>): Promise<T> {
  for (let deadline = Date.now() + 30_000; ;) {
    try {
      return await f();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
const shard = (s: string) => `shardSelector=${encodeURIComponent(s)}`;

/** Lists and watches with shard selectors: good ones, and malformed ones. */
async function shardRequests(t: Transcript): Promise<void> {
  const cms = t.path('configmaps');
  await seed(t, ['s1', 's2', 's3', 's4']);
  const full = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
  await t.call(
    'list all, with a selector over the whole space',
    'GET',
    `${cms}?${shard(full.replace("'0x8000000000000000'", "'0xffffffffffffffff'"))}`,
  );
  // 2^64, the exclusive end of the space, as shardSelectorFor writes the last slot's range
  await t.call('list all, up to 2^64', 'GET', `${cms}?${shard(full.replace("'0x8000000000000000'", "'0x10000000000000000'"))}`);
  // which objects fall in a half depends on their random uids: only the echo compares
  await t.call('list a half', 'GET', `${cms}?${shard(full)}`, undefined, undefined, { mask: (b) => ({ ...b, items: '<some>' }) });
  const tight = full.replaceAll(', ', ',');
  await t.call('list with a selector without spaces', 'GET', `${cms}?${shard(tight)}`, undefined, undefined, {
    mask: (b) => ({ ...b, items: '<some>' }),
  });
  await t.call(
    'list two ranges',
    'GET',
    `${cms}?${shard(`${full} || shardRange(object.metadata.namespace, '0x8000000000000000', '0xffffffffffffffff')`)}`,
  );
  for (const bad of [
    "shardRange(object.metadata.uid, '0x0', '0x8')",
    "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
    "shardRange(object.metadata.uid, '0x0000000000000000', '0xFFFFFFFFFFFFFFFF')",
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x123456789abcdef01234')",
  ]) {
    await t.call(`malformed ${bad}`, 'GET', `${cms}?${shard(bad)}`);
  }
  // a syntax error: kube-apiserver words it as CEL does (a known difference)
  await t.call('malformed syntax', 'GET', `${cms}?${shard('shardRange(')}`, undefined, undefined, { mask: noMessage });
  const w = await t.watch(`${cms}?watch=true&${shard("shardRange(object.metadata.uid, '0x0', '0x8')")}`);
  await w.until(() => w.ended, 3000).catch(() => undefined);
  t.recordWatch('watch with a malformed selector', w);
}

const cases: Record<'sharded' | 'watchListOff' | 'expiry', FidelityCase[]> = {
  sharded: [{ name: 'shardSelector with ShardedListAndWatch on', script: shardRequests }],
  watchListOff: [
    {
      name: 'sendInitialEvents with WatchList off, and shardSelector with ShardedListAndWatch off',
      script: async (t) => {
        const cms = t.path('configmaps');
        const w = await t.watch(`${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
        await w.until(() => w.ended, 3000).catch(() => undefined);
        t.recordWatch('a watch-list refused', w);
        await shardRequests(t);
      },
    },
  ],
  expiry: [
    {
      name: '410 Gone: continue token and old list after a compaction, watches after a restart',
      script: async (t) => {
        const cms = t.path('configmaps');
        await seed(t, ['e1', 'e2', 'e3']);
        const first = await t.call('page 1', 'GET', `${cms}?limit=1`);
        const rv = first.body.metadata.resourceVersion;
        await t.server.api.patch(t.path('configmaps', 'e1'), { data: { v: 'after' } });
        await t.server.compact();
        const expired = await t.call(
          'continue after compaction',
          'GET',
          `${cms}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`,
        );
        const inconsistent = expired.body.metadata?.continue;
        if (inconsistent)
          await t.call('the inconsistent continuation', 'GET', `${cms}?limit=5&continue=${encodeURIComponent(inconsistent)}`);
        await t.call('exact list at the old revision', 'GET', `${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
        await t.call('limited list at the old revision', 'GET', `${cms}?resourceVersion=${rv}&limit=1`);
        await t.call('NotOlderThan the old revision', 'GET', `${cms}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
        // a watch from before the compaction is served from kube-apiserver's watch cache, where the
        // simulator's compact() empties its history too (a known difference, kept: see the README)
        await t.server.restart();
        await retry(() => t.server.api.create(cms, { metadata: { name: 'after-restart' } }));
        const w = await t.watch(`${cms}?watch=true&resourceVersion=${rv}`);
        await w.until((e) => e.length >= 1 || w.ended);
        t.recordWatch('watch from before the restart', w);
      },
    },
  ],
};

describe.each([
  ['sharded', { featureGates: { ShardedListAndWatch: true } }],
  ['watchListOff', { featureGates: { WatchList: false }, sim: { watchList: false } }],
  ['expiry', {}],
] as const)('(%s) the simulator answers as kube-apiserver 1.36.3', (group, options) => {
  let sim: TestServer;
  let real: TestServer;
  beforeAll(async () => {
    if (!withReal) return;
    [sim, real] = await Promise.all([startTestServer('sim', options as never), startTestServer('real', options as never)]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([sim?.close(), real?.close()]);
    await closeWatchAgents();
  });
  (withReal ? it.each : it.skip.each)(cases[group].map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      const { sim: s, real: r } = await runCase(c, sim, real, `gate-${group.toLowerCase()}`);
      if (process.env.FIDELITY_DUMP) dump(process.env.FIDELITY_DUMP, c.name, s, r);
      expect(s).toEqual(r);
    },
    90_000,
  );
});
