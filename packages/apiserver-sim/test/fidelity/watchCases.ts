/**
 * Fidelity cases of WATCH: a scripted history watched from a resourceVersion, from "0" and unset,
 * through a selector, as metadata; the watch-list (sendInitialEvents) with its end bookmark; and
 * the errors of bad options.
 */
import { seed } from './listCases.ts';
import { about, ACCEPT, isInitialEventsEnd, type FidelityCase, type Transcript } from './transcript.ts';

/** The scripted history: create h1, change it, create h2, relabel h1, delete h1, then the sentinel `end`. */
async function history(t: Transcript): Promise<void> {
  const cms = t.path('configmaps');
  await t.server.api.create(cms, { metadata: { name: 'h1', labels: { sel: 'yes' } }, data: { v: '1' } });
  await t.server.api.patch(t.path('configmaps', 'h1'), { data: { v: '2' } });
  await t.server.api.create(cms, { metadata: { name: 'h2', labels: { sel: 'yes' } }, data: { v: '1' } });
  await t.server.api.patch(t.path('configmaps', 'h1'), { metadata: { labels: { sel: 'no' } } });
  await t.server.api.patch(t.path('configmaps', 'h1'), { metadata: { labels: { sel: 'yes' } } });
  await t.server.api.delete(t.path('configmaps', 'h1'));
  await t.server.api.create(cms, { metadata: { name: 'end', labels: { sel: 'yes' } }, data: { end: '1' } });
}

export const watchCases: FidelityCase[] = [
  {
    name: 'watch a scripted history from a resourceVersion, through a selector, and as metadata',
    script: async (t) => {
      const cms = t.path('configmaps');
      const listed = await t.call('list', 'GET', cms);
      const rv = listed.body.metadata.resourceVersion;
      const all = await t.watch(`${cms}?watch=true&resourceVersion=${rv}`);
      const selected = await t.watch(`${cms}?watch=true&resourceVersion=${rv}&labelSelector=sel%3Dyes`);
      const meta = await t.watch(`${cms}?watch=true&resourceVersion=${rv}`, { accept: ACCEPT.metadata });
      const table = await t.watch(`${cms}?watch=true&resourceVersion=${rv}`, { accept: ACCEPT.table });
      await history(t);
      for (const w of [all, selected, meta]) await w.until(about('end'));
      await table.until((e) => e.some((x) => x.object?.rows?.[0]?.cells?.[0] === 'end'));
      t.recordWatch('all', all);
      t.recordWatch('selected', selected);
      t.recordWatch('metadata', meta);
      t.recordWatch('table', table);
      // replayed from the history, by a watch opened afterwards
      const replay = await t.watch(`${cms}?watch=true&resourceVersion=${rv}`);
      await replay.until(about('end'));
      t.recordWatch('replay', replay);
    },
  },
  {
    name: 'watch from "0" and unset: the current objects as ADDED, then changes',
    script: async (t) => {
      await seed(t, ['w-b', 'w-a', 'w-c']);
      await t.call('consistent list first', 'GET', t.path('configmaps'));
      const zero = await t.watch(`${t.path('configmaps')}?watch=true&resourceVersion=0`);
      const unset = await t.watch(`${t.path('configmaps')}?watch=1`);
      await Promise.all([zero.until((e) => e.length >= 3), unset.until((e) => e.length >= 3)]);
      await t.server.api.patch(t.path('configmaps', 'w-a'), { data: { v: 'x' } });
      await t.server.api.create(t.path('configmaps'), { metadata: { name: 'end' }, data: { end: '1' } });
      await Promise.all([zero.until(about('end')), unset.until(about('end'))]);
      t.recordWatch('from 0', zero);
      t.recordWatch('unset', unset);
    },
  },
  {
    name: 'watch-list: ADDED in key order with their own resourceVersions, then the end bookmark',
    script: async (t) => {
      const cms = t.path('configmaps');
      await seed(t, ['k-m', 'k-z', 'k-a']);
      await t.server.api.patch(t.path('configmaps', 'k-z'), { data: { v: 'changed' } }, 'merge');
      const params = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan';
      const bookmarks = await t.watch(`${cms}?${params}&allowWatchBookmarks=true`);
      const noBookmarks = await t.watch(`${cms}?${params}&resourceVersion=0`);
      const metadata = await t.watch(`${cms}?${params}&allowWatchBookmarks=true&resourceVersion=0`, { accept: ACCEPT.metadata });
      await bookmarks.until((e) => e.some(isInitialEventsEnd));
      await metadata.until((e) => e.some(isInitialEventsEnd));
      await noBookmarks.until((e) => e.length >= 3);
      await t.server.api.create(cms, { metadata: { name: 'end' }, data: { end: '1' } });
      for (const w of [bookmarks, noBookmarks, metadata]) await w.until(about('end'));
      t.recordWatch('with bookmarks', bookmarks);
      t.recordWatch('without bookmarks', noBookmarks);
      t.recordWatch('as metadata', metadata);
      const list = await t.call('list', 'GET', cms);
      const off = await t.watch(
        `${cms}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=${list.body.metadata.resourceVersion}`,
      );
      await t.server.api.patch(t.path('configmaps', 'end'), { data: { v: 'after' } });
      await off.until((e) => e.length >= 1);
      t.recordWatch('sendInitialEvents=false from the list', off);
    },
  },
  {
    name: 'watch options refused: 400 and 422 answers before any stream',
    script: async (t) => {
      const cms = t.path('configmaps');
      const refused = async (step: string, query: string) => {
        const w = await t.watch(`${cms}?watch=true&${query}`);
        // a stream that opens is a difference too: recorded after a short wait
        await w.until(() => w.ended, 2000).catch(() => undefined);
        t.recordWatch(step, w);
      };
      await refused('sendInitialEvents without resourceVersionMatch', 'sendInitialEvents=true');
      await refused('resourceVersionMatch without sendInitialEvents', 'resourceVersionMatch=NotOlderThan&resourceVersion=1');
      await refused('resourceVersionMatch Exact', 'sendInitialEvents=true&resourceVersionMatch=Exact');
      await refused('bad resourceVersion', 'resourceVersion=abc');
      await refused('bad sendInitialEvents', 'sendInitialEvents=maybe&resourceVersionMatch=NotOlderThan');
      await refused('bad timeoutSeconds', 'timeoutSeconds=soon');
      await refused('unknown field', 'fieldSelector=spec.x%3D1');
      await refused('continue', 'continue=abc');
    },
  },
  {
    name: 'a watch whose timeoutSeconds is past what a JavaScript timer holds (24.8 days) stays open',
    script: async (t) => {
      const cms = t.path('configmaps');
      const listed = await t.call('list', 'GET', cms);
      // 3,000,000 s: a Node timer of that many ms fires after 1 ms instead.
      const w = await t.watch(`${cms}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}&timeoutSeconds=3000000`);
      await t.server.api.create(cms, { metadata: { name: 'end' }, data: { end: '1' } });
      await w.until(about('end'));
      t.record('still open after an event', !w.ended);
      t.recordWatch('open', w);
    },
  },
  {
    name: 'bookmarks: what one looks like, and a timed-out watch ends cleanly',
    script: async (t) => {
      await seed(t, ['b1']);
      const w = await t.watch(`${t.path('configmaps')}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=0`);
      await w.until(() => w.ended, 15_000);
      // With the WatchList gate on, a watch from "" or "0" without the options is defaulted to a
      // watch-list (SetListOptionsDefaults): its first bookmark ends the initial events.
      t.recordWatch('until the timeout', w, { bookmarks: true });
    },
  },
];
