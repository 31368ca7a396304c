import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { openWatch, req, type WatchReader } from './helpers.ts';
import { flushTo, pod, testScheduler, until } from '@rxinformer/testing';

describe('WATCH', () => {
  let sim: ApiServer;
  let base: string;
  const open: WatchReader[] = [];
  let ts: ReturnType<typeof testScheduler>; // the watches' bookmarks and timeouts run in virtual time
  const watch = async (query: string, headers?: Record<string, string>) => {
    const w = await openWatch(`${base}?watch=true&${query}`, headers);
    open.push(w);
    return w;
  };
  beforeEach(async () => {
    ts = testScheduler();
    sim = await startApiServer({ port: 0, seed: 5, bookmarkIntervalMs: 100, history: { maxEvents: 50 }, scheduler: ts });
    base = `${sim.url}/api/v1/namespaces/default/pods`;
    sim.storage.create('pods', pod('a', { labels: { app: 'web' } }), 'default');
    sim.storage.create('pods', pod('b', { labels: { app: 'db' } }), 'default');
  });
  afterEach(async () => {
    for (const w of open.splice(0)) w.close();
    await sim.close();
  });

  it('should send every change committed while the initial events go out in batches, after them', async () => {
    const big = await startApiServer({ port: 0, seed: 6 });
    try {
      for (let i = 0; i < 1600; i++) big.storage.create('pods', pod(`p-${String(i).padStart(4, '0')}`), 'default');
      const url = `${big.url}/api/v1/namespaces/default/pods?watch=true`;
      for (const query of [
        '',
        '&resourceVersion=0',
        '&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      ]) {
        const w = await openWatch(url + query);
        open.push(w);
        // Creates between the batches of 500 initial events (each batch waits a task).
        const created: string[] = [];
        for (let i = 0; i < 4; i++) {
          await new Promise((r) => setImmediate(r));
          const name = `new-${created.length}-${query.length}`;
          big.storage.create('pods', pod(name), 'default');
          created.push(name);
        }
        const total = big.storage.list('pods').length;
        const isBookmark = (e: { type: string }) => e.type === 'BOOKMARK';
        const deadline = Date.now() + 10_000;
        while (w.events.filter((e) => !isBookmark(e)).length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const names = w.events.filter((e) => !isBookmark(e)).map((e) => e.object.metadata?.name);
        expect(new Set(names).size).toBe(total);
        for (const name of created) expect(names).toContain(name);
        if (query.includes('sendInitialEvents')) {
          // The end-of-initial-events bookmark comes before the changes made after its revision.
          const end = w.events.findIndex(isBookmark);
          const rv = Number(w.events[end].object.metadata?.resourceVersion);
          const later = w.events.filter((e) => Number(e.object.metadata?.resourceVersion) > rv);
          expect(later.length).toBeGreaterThan(0);
          expect(w.events.indexOf(later[0])).toBeGreaterThan(end);
        }
        w.close();
      }
    } finally {
      await big.close();
    }
  });

  it('should send synthetic ADDED for every object when resourceVersion is unset or 0, then changes', async () => {
    for (const rv of ['', 'resourceVersion=0']) {
      const w = await watch(rv);
      expect(w.code).toBe(200);
      const evs = await w.waitFor(2);
      expect(evs.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED a', 'ADDED b']);
      w.close();
    }
    const w = await watch('resourceVersion=0');
    await w.waitFor(2);
    sim.storage.create('pods', pod('c'), 'default');
    const evs = await w.waitFor(3);
    expect(evs[2].type).toBe('ADDED');
    expect(evs[2].object.metadata?.name).toBe('c');
  });

  it('should replay only changes after resourceVersion N, with strictly increasing RVs', async () => {
    const rv = sim.storage.resourceVersion;
    sim.storage.update(
      'pods',
      {
        ...sim.storage.get('pods', 'default', 'a'),
        metadata: { ...sim.storage.get('pods', 'default', 'a').metadata, labels: { app: 'web', v: '2' } },
      },
      'default',
      'a',
    );
    const deleted = sim.storage.delete('pods', 'default', 'b');
    const w = await watch(`resourceVersion=${rv}`);
    sim.storage.create('pods', pod('c'), 'default');
    const evs = await w.waitFor(3);
    expect(evs.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['MODIFIED a', 'DELETED b', 'ADDED c']);
    expect(evs[1].object.metadata?.resourceVersion).toBe(deleted.metadata?.resourceVersion);
    const rvs = evs.map((e) => Number(e.object.metadata?.resourceVersion));
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
    expect(new Set(rvs).size).toBe(3);
  });

  it('should answer a compacted resourceVersion with 200, one ERROR 410 event and the end of the stream', async () => {
    const rv = sim.storage.resourceVersion;
    for (let i = 0; i < 60; i++) sim.storage.create('pods', pod(`p${i}`), 'default');
    const w = await watch(`resourceVersion=${Number(rv) - 1}`);
    expect(w.code).toBe(200);
    await expect(w.ended).resolves.toEqual({ clean: true });
    expect(w.events).toHaveLength(1);
    expect(w.events[0].type).toBe('ERROR');
    expect(w.events[0].object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 });
    expect(w.events[0].object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it("should keep a quiet resource's watch window while another kind churns past the history size", async () => {
    sim.storage.create('configmaps', { metadata: { name: 'quiet' } }, 'default');
    const listRv = sim.storage.resourceVersion;
    for (let i = 0; i < 60; i++) sim.storage.create('pods', pod(`p${i}`), 'default');
    const w = await openWatch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${listRv}`);
    open.push(w);
    sim.storage.delete('configmaps', 'default', 'quiet');
    const [ev] = await w.waitFor(1);
    expect(`${ev.type} ${ev.object.metadata?.name}`).toBe('DELETED quiet');
  });

  it('should wait for a future resourceVersion and send only later changes', async () => {
    const future = Number(sim.storage.resourceVersion) + 2;
    const w = await watch(`resourceVersion=${future}`);
    sim.storage.create('pods', pod('c'), 'default');
    sim.storage.create('pods', pod('d'), 'default');
    sim.storage.create('pods', pod('e'), 'default');
    const evs = await w.waitFor(1);
    expect(evs.map((e) => e.object.metadata?.name)).toEqual(['e']);
  });

  it('should turn selector transitions into ADDED and DELETED', async () => {
    const w = await watch('resourceVersion=0&labelSelector=app%3Dweb');
    await w.waitFor(1);
    const b = sim.storage.get('pods', 'default', 'b');
    const moved = sim.storage.update('pods', { ...b, metadata: { ...b.metadata, labels: { app: 'web' } } }, 'default', 'b');
    const a = sim.storage.get('pods', 'default', 'a');
    const left = sim.storage.update('pods', { ...a, metadata: { ...a.metadata, labels: { app: 'gone' } } }, 'default', 'a');
    const evs = await w.waitFor(3);
    expect(evs.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    expect(evs[1].object.metadata?.resourceVersion).toBe(moved.metadata?.resourceVersion);
    expect(evs[2].object.metadata?.resourceVersion).toBe(left.metadata?.resourceVersion);
    expect(evs[2].object.metadata?.labels).toEqual({ app: 'web' });
  });

  it('should send bookmarks only when allowed', async () => {
    const rv = sim.storage.resourceVersion;
    const w = await watch(`resourceVersion=${rv}&allowWatchBookmarks=true`);
    const plain = await watch(`resourceVersion=${rv}`);
    await until(() => sim.watches.sessions().length === 2);
    const opened = ts.now();
    flushTo(ts, opened + 100); // one bookmark interval
    const evs = await w.waitFor(1);
    expect(evs[0].type).toBe('BOOKMARK');
    expect(evs[0].object).toEqual({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv } });
    flushTo(ts, opened + 200);
    await w.waitFor(2); // by the second bookmark, the first would have reached the plain watch too
    expect(plain.events).toEqual([]);
  });

  it('should end cleanly after timeoutSeconds with no final event', async () => {
    const w = await watch(`resourceVersion=${sim.storage.resourceVersion}&timeoutSeconds=1`);
    await until(() => sim.watches.sessions().length === 1);
    const opened = ts.now();
    flushTo(ts, opened + 999);
    expect(sim.watches.sessions()).toHaveLength(1);
    flushTo(ts, opened + 1000);
    await expect(w.ended).resolves.toEqual({ clean: true });
    expect(w.events).toEqual([]);
  });

  it('should treat timeoutSeconds=0 as unset and keep the stream open', async () => {
    const w = await watch(`resourceVersion=${sim.storage.resourceVersion}&timeoutSeconds=0`);
    await until(() => sim.watches.sessions().length === 1);
    flushTo(ts, ts.now() + 1_799_999); // the default timeout, 1800 s, less a millisecond
    expect(sim.watches.sessions()).toHaveLength(1);
    sim.storage.delete('pods', 'default', 'a');
    const evs = await w.waitFor(1);
    expect(evs.map((e) => e.type)).toEqual(['DELETED']);
  });

  it('should stream a list: ADDED for each object, the initial-events-end bookmark, then changes', async () => {
    const w = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=');
    const evs = await w.waitFor(3);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(evs[2].object.metadata).toEqual({
      resourceVersion: sim.storage.resourceVersion,
      annotations: { 'k8s.io/initial-events-end': 'true' },
    });
    sim.storage.delete('pods', 'default', 'a');
    const more = await w.waitFor(4);
    expect(more[3].type).toBe('DELETED');
  });

  it('should accept sendInitialEvents=false with resourceVersionMatch=NotOlderThan and send only later changes', async () => {
    const w = await watch('sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    expect(w.code).toBe(200);
    await until(() => sim.watches.sessions().length === 1);
    sim.storage.delete('pods', 'default', 'a');
    const evs = await w.waitFor(1);
    expect(evs.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['DELETED a']);
  });

  it('should stream a list without allowWatchBookmarks with no bookmark at all, the initial-events-end one included', async () => {
    const w = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
    expect(w.code).toBe(200);
    await w.waitFor(2);
    sim.storage.create('pods', pod('c'), 'default');
    const evs = await w.waitFor(3);
    expect(evs.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
  });

  it('should refuse bad watch options before streaming', async () => {
    // as kube-apiserver converts booleans, "maybe" is true: a watch-list (test/fidelity)
    expect((await req(`${base}?watch=true&sendInitialEvents=maybe`)).code).toBe(422);
    expect((await req(`${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact`)).code).toBe(422);
    expect((await req(`${base}?watch=true&sendInitialEvents=true`)).code).toBe(422);
    expect((await req(`${base}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`)).code).toBe(422);
    expect((await req(`${base}?watch=true&labelSelector=${encodeURIComponent('a in (')}`)).code).toBe(400);
    expect((await req(`${sim.url}/api/v1/nothings?watch=true`)).code).toBe(404);
  });

  it('should watch one object by name and filter by namespace', async () => {
    sim.storage.create('namespaces', { metadata: { name: 'other' } });
    const w = await openWatch(`${sim.url}/api/v1/watch/namespaces/default/pods/a`);
    open.push(w);
    const all = await watch(`resourceVersion=${sim.storage.resourceVersion}`);
    sim.storage.create('pods', pod('a', { namespace: 'other' }), 'other');
    sim.storage.delete('pods', 'default', 'b');
    sim.storage.delete('pods', 'default', 'a');
    const evs = await w.waitFor(2);
    expect(evs.map((e) => `${e.type} ${e.object.metadata?.namespace}/${e.object.metadata?.name}`)).toEqual([
      'ADDED default/a',
      'DELETED default/a',
    ]);
    const seen = await all.waitFor(2);
    expect(seen.map((e) => e.object.metadata?.name)).toEqual(['b', 'a']);
  });

  it('should answer a named GET with watch=true with the object: only collections are watched', async () => {
    const r = await req(`${base}/a?watch=true`);
    expect(r.code).toBe(200);
    expect(r.headers.get('content-length')).not.toBeNull();
    expect(r.body).toMatchObject({ kind: 'Pod', metadata: { name: 'a' } });
    expect(sim.watches.sessions()).toEqual([]);
  });

  it('should emit nothing for a no-op update and keep the revision', async () => {
    const w = await watch(`resourceVersion=${sim.storage.resourceVersion}`);
    const a = sim.storage.get('pods', 'default', 'a');
    const same = sim.storage.update('pods', a, 'default', 'a');
    expect(same.metadata?.resourceVersion).toBe(a.metadata?.resourceVersion);
    sim.storage.create('pods', pod('z'), 'default');
    const evs = await w.waitFor(1);
    expect(evs.map((e) => e.object.metadata?.name)).toEqual(['z']);
  });

  it('should render watch events as single-row Tables for kubectl', async () => {
    const w = await watch('resourceVersion=0', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    const evs = await w.waitFor(2);
    expect(evs[0].object.kind).toBe('Table');
    expect((evs[0].object as any).rows).toHaveLength(1);
  });

  it('should send a long replay and a large initial list in batches the socket drains, with writes in between', async () => {
    const big = await startApiServer({ port: 0, seed: 6, history: { maxEvents: 5000 }, maxWatchBufferBytes: 256 * 1024 });
    try {
      const url = `${big.url}/api/v1/namespaces/default/configmaps?watch=true`;
      const rv0 = big.storage.resourceVersion;
      const cm = (i: number, v: string) => ({ metadata: { name: `cm-${String(i).padStart(4, '0')}` }, data: { v, pad: 'x'.repeat(400) } });
      for (let i = 0; i < 1200; i++) big.storage.create('configmaps', cm(i, '1'), 'default');
      // 1,200 replayed events (~0.6 MB) exceed maxWatchBufferBytes: batched, nothing is dropped
      const replay = await openWatch(`${url}&resourceVersion=${rv0}`);
      const listed = await openWatch(`${url}&resourceVersion=0`);
      try {
        // committed while the initial events are still going out
        big.storage.update('configmaps', cm(1100, '2'), 'default', 'cm-1100');
        const r = await replay.waitFor(1201, 10_000);
        expect(r.slice(0, 1200).every((e, i) => e.type === 'ADDED' && e.object.metadata?.name === cm(i, '').metadata.name)).toBe(true);
        expect(r[1200]).toMatchObject({ type: 'MODIFIED', object: { data: { v: '2' } } });
        const l = await listed.waitFor(1201, 10_000);
        // the list is the state at the watch's start; the later change follows it
        expect(l.slice(0, 1200).map((e) => e.object.data.v)).toEqual(Array(1200).fill('1'));
        expect(l[1200]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'cm-1100' }, data: { v: '2' } } });
        expect(big.watches.sessions()).toHaveLength(2);
      } finally {
        replay.close();
        listed.close();
      }
    } finally {
      await big.close();
    }
  });
});
