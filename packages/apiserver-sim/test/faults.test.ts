import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { openWatch, req, type WatchReader } from './helpers.ts';
import { pod, until } from '@rxinformer/testing';

describe('faults', () => {
  let sim: ApiServer;
  let base: string;
  const open: WatchReader[] = [];
  const watch = async (query = '') => {
    const w = await openWatch(`${base}?watch=true&resourceVersion=${sim.storage.resourceVersion}${query}`);
    open.push(w);
    return w;
  };
  /**
   * Writes two pods, one after the other's event reached `witness`: what a stalled watch would have
   * got of the first has had a whole round trip to arrive by then.
   */
  const passedBoth = async (witness: WatchReader) => {
    sim.storage.create('pods', pod('a'), 'default');
    await witness.waitFor(1);
    sim.storage.create('pods', pod('b'), 'default');
    await witness.waitFor(2);
  };
  /** Resolves once `server` holds `n` watch sessions (an opened watch registers after its headers went out). */
  const sessions = (n: number, server = sim) => until(() => server.watches.sessions().length === n, { what: `${n} watch session(s)` });
  const control = (name: string, body: unknown = {}, headers: Record<string, string> = {}) =>
    req(`${sim.url}/_sim/faults/${name}`, { method: 'POST', body, headers });
  beforeEach(async () => {
    sim = await startApiServer({ port: 0, seed: 42 });
    base = `${sim.url}/api/v1/namespaces/default/pods`;
  });
  afterEach(async () => {
    for (const w of open.splice(0)) w.close();
    await sim.close();
  });

  it('should drop every watch, or one chosen by the seed', async () => {
    const ws = await Promise.all([watch(), watch(), watch()]);
    await sessions(3);
    expect(sim.faults.dropWatches('one')).toBe(1);
    const first = await Promise.race(ws.map((w, i) => w.ended.then((e) => ({ i, ...e }))));
    expect(first.clean).toBe(false);
    await sessions(2);
    const r = await control('dropWatches', { target: 'all' });
    expect(r.body).toEqual({ ok: true, hit: 2 });
    for (const w of ws) expect((await w.ended).clean).toBe(false);
  });

  it('should pick the same watch for the same seed', async () => {
    const pickWith = async (seed: number) => {
      const s = await startApiServer({ port: 0, seed });
      const ws = await Promise.all([0, 1, 2, 3].map(() => openWatch(`${s.url}/api/v1/pods?watch=true&resourceVersion=1`)));
      await sessions(4, s);
      s.faults.dropWatches('one');
      const hit = await Promise.race(ws.map((w, i) => w.ended.then(() => i)));
      for (const w of ws) w.close();
      await s.close();
      return hit;
    };
    expect(await pickWith(9)).toBe(await pickWith(9));
  });

  it('should draw UIDs, generated names and fault choices from the seed alone', async () => {
    const script = async (seed: number) => {
      const s = await startApiServer({ port: 0, seed });
      try {
        const made = [];
        for (let i = 0; i < 3; i++) {
          const r = await req(`${s.url}/api/v1/namespaces/default/pods`, {
            method: 'POST',
            body: { metadata: { generateName: 'w-' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          });
          made.push(`${r.body.metadata.name} ${r.body.metadata.uid}`);
        }
        // opened one after another, so client index = server opening order
        const ws = [];
        for (let i = 0; i < 5; i++)
          ws.push(await openWatch(`${s.url}/api/v1/pods?watch=true&resourceVersion=${s.storage.resourceVersion}`));
        s.faults.stallWatches('one');
        s.faults.dropWatches('one');
        const dropped = await Promise.race(ws.map((w, i) => w.ended.then(() => i)));
        const stalled = s.watches.sessions().findIndex((x) => x.stalled);
        for (const w of ws) w.close();
        return { made, dropped, stalled };
      } finally {
        await s.close();
      }
    };
    const a = await script(1234);
    expect(await script(1234)).toEqual(a);
    expect((await script(99)).made).not.toEqual(a.made);
  });

  it('should inject an ERROR event and end the stream', async () => {
    const w = await watch();
    await sessions(1);
    sim.faults.injectWatchError();
    await expect(w.ended).resolves.toEqual({ clean: true });
    expect(w.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    const w2 = await watch();
    await sessions(1);
    await control('injectWatchError', { status: { code: 500, reason: 'InternalError', message: 'boom' } });
    await w2.ended;
    expect(w2.events[0].object).toMatchObject({ code: 500, message: 'boom', status: 'Failure' });
  });

  it('should compact now: older watches get ERROR 410', async () => {
    const rv = sim.storage.resourceVersion;
    sim.storage.create('pods', pod('a'), 'default');
    await control('compact');
    const w = await openWatch(`${base}?watch=true&resourceVersion=${rv}`);
    open.push(w);
    await w.ended;
    expect(w.events[0].object.code).toBe(410);
  });

  it('should fail the next N requests with 500, 503 or 429 + Retry-After, then recover', async () => {
    sim.faults.failNext(2, { code: 503, retryAfterSeconds: 2 });
    const a = await req(base);
    expect(a.code).toBe(503);
    expect(a.headers.get('retry-after')).toBe('2');
    expect(a.body.details.retryAfterSeconds).toBe(2);
    expect((await req(base)).code).toBe(503);
    expect((await req(base)).code).toBe(200);
    await control('failNext', { count: 1, code: 429 });
    const t = await req(base);
    expect(t.code).toBe(429);
    expect(t.headers.get('content-type')).toContain('text/plain');
    expect(t.text).toContain('Too many requests');
    expect(t.headers.get('retry-after')).toBe('1');
    sim.faults.failNext(1, { code: 500, on: 'watch' });
    expect((await req(base)).code).toBe(200);
    expect((await req(`${base}?watch=true`)).code).toBe(500);
    expect((await control('failNext', { code: 418 })).code).toBe(400);
  });

  it('should add latency', async () => {
    sim.faults.latency(150);
    const t0 = Date.now();
    await req(base);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await control('latency', { ms: 0 });
  });

  it('should stall a watch: open connection, no bytes', async () => {
    const w = await watch();
    await sessions(1);
    expect(sim.faults.stallWatches()).toBe(1);
    const fresh = await watch(); // opened after the stall: a witness that gets what the stalled one would
    await sessions(2);
    await passedBoth(fresh);
    expect(w.events).toEqual([]);
    expect(sim.watches.sessions()).toHaveLength(2); // the stalled one is still open
  });

  it('should stall the next watch to open', async () => {
    await control('stallWatches', { target: 'next' });
    const w = await watch();
    await sessions(1);
    const fresh = await watch(); // the next but one: a witness that gets what the stalled one would
    await sessions(2);
    await passedBoth(fresh);
    expect(w.events).toEqual([]);
  });

  it('should emit a malformed line and go on', async () => {
    const w = await watch();
    await sessions(1);
    expect((await control('malformedLine')).body.hit).toBe(1);
    sim.storage.create('pods', pod('a'), 'default');
    await w.waitFor(1);
    expect(w.bad).toHaveLength(1);
    expect(w.events[0].object.metadata?.name).toBe('a');
  });

  it('should restart: connections dropped, history gone, revisions continue', async () => {
    sim.storage.create('pods', pod('a'), 'default');
    const w = await watch();
    const rv = Number(sim.storage.resourceVersion);
    await sessions(1);
    await control('restart');
    expect((await w.ended).clean).toBe(false);
    for (const from of [rv - 1, rv]) {
      // Even from the last revision before the restart: kube-apiserver's rebuilt cache starts later.
      const old = await openWatch(`${base}?watch=true&resourceVersion=${from}`);
      open.push(old);
      await old.ended;
      expect(old.events[0].object.code).toBe(410);
    }
    const created = sim.storage.create('pods', pod('b'), 'default');
    expect(Number(created.metadata?.resourceVersion)).toBe(rv + 2); // the restart wrote its identity Lease
    expect((await req(base)).body.items).toHaveLength(2);
  });

  it('should require the bearer token and answer 403 for forbidden resources', async () => {
    sim.faults.setAuth({ token: 's3cret', forbidden: [{ resource: 'secrets' }] });
    expect((await req(base)).code).toBe(401);
    const auth = { Authorization: 'Bearer s3cret' };
    expect((await req(base, { headers: auth })).code).toBe(200);
    const denied = await req(`${sim.url}/api/v1/namespaces/default/secrets`, { headers: auth });
    expect(denied.code).toBe(403);
    expect(denied.body.reason).toBe('Forbidden');
    expect(denied.body.message).toBe(
      'secrets is forbidden: User "sim" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    expect((await control('forbid', { resource: 'pods', verbs: ['watch'] })).code).toBe(401); // the control endpoints need it too
    expect((await control('forbid', { resource: 'pods', verbs: ['watch'] }, auth)).code).toBe(200);
    expect((await req(`${base}?watch=true`, { headers: auth })).code).toBe(403);
    expect((await req(base, { headers: auth })).code).toBe(200);
    expect(sim.kubeconfigYaml()).toContain('token: "s3cret"');
    expect((await control('allow', { resource: 'pods' })).code).toBe(401); // no lifting a denial without the token
    expect((await req(`${base}?watch=true`, { headers: auth })).code).toBe(403);
    await control('auth', { token: null }, auth);
    expect((await req(base)).code).toBe(200);
  });

  it('should refuse unknown control endpoints and bad bodies', async () => {
    expect((await control('nope')).code).toBe(404);
    expect((await req(`${sim.url}/_sim/faults/dropWatches`, { method: 'POST', rawBody: '{', contentType: 'application/json' })).code).toBe(
      400,
    );
    expect((await control('dropWatches', { target: 'some' })).code).toBe(400);
    const state = await req(`${sim.url}/_sim/state`);
    expect(state.body.resourceVersion).toBe(sim.storage.resourceVersion);
  });
});
