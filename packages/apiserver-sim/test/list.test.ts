import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { req } from './helpers.ts';
import { flushTo, pod, testScheduler } from '@rxinformer/testing';

describe('LIST', () => {
  let sim: ApiServer;
  let base: string;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 3, tooLargeWaitMs: 200 });
    base = `${sim.url}/api/v1/namespaces/default/pods`;
    for (let i = 0; i < 10; i++)
      sim.storage.create('pods', pod(`p${i}`, { labels: { app: i % 2 === 0 ? 'even' : 'odd', idx: String(i) } }), 'default');
    sim.storage.create('namespaces', { metadata: { name: 'other' } });
    sim.storage.create('pods', pod('x', { labels: { app: 'even' }, namespace: 'other' }), 'other');
  });
  afterAll(() => sim.close());

  it('should answer a PodList with the current resourceVersion and application/json', async () => {
    const r = await req(base);
    expect(r.code).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body.kind).toBe('PodList');
    expect(r.body.apiVersion).toBe('v1');
    expect(r.body.items.map((p: any) => p.metadata.name)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    expect(r.body.metadata.resourceVersion).toBe(sim.storage.resourceVersion);
    expect(r.body.metadata.continue).toBeUndefined();
  });

  it('should list every namespace on the cluster path and nothing for a missing namespace', async () => {
    const all = await req(`${sim.url}/api/v1/pods`);
    expect(all.body.items).toHaveLength(11);
    const none = await req(`${sim.url}/api/v1/namespaces/nope/pods`);
    expect(none.code).toBe(200);
    expect(none.body.items).toEqual([]);
  });

  it('should page with limit and continue, every page at the first page RV', async () => {
    const first = await req(`${base}?limit=4`);
    expect(first.body.items).toHaveLength(4);
    expect(first.body.metadata.remainingItemCount).toBe(6);
    const rv = first.body.metadata.resourceVersion;
    // a change between pages is not seen by the continuation
    const created = sim.storage.create('pods', pod('p99'), 'default');
    sim.storage.delete('pods', 'default', 'p5');
    const names: string[] = first.body.items.map((p: any) => p.metadata.name);
    let token = first.body.metadata.continue;
    while (token) {
      const page = await req(`${base}?limit=4&continue=${encodeURIComponent(token)}`);
      expect(page.code).toBe(200);
      expect(page.body.metadata.resourceVersion).toBe(rv);
      names.push(...page.body.items.map((p: any) => p.metadata.name));
      token = page.body.metadata.continue;
    }
    expect(names).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    sim.storage.delete('pods', 'default', created.metadata!.name!);
    sim.storage.create('pods', pod('p5', { labels: { app: 'odd', idx: '5' } }), 'default');
  });

  it('should ignore a limit of 0 or below, as a real server does', async () => {
    for (const limit of ['-1', '0']) {
      const r = await req(`${base}?limit=${limit}`);
      expect(r.code).toBe(200);
      expect(r.body.items).toHaveLength(10);
      expect(r.body.metadata.continue).toBeUndefined();
    }
    expect((await req(`${base}?limit=x`)).code).toBe(400);
  });

  it('should ignore limit for resourceVersion=0', async () => {
    const r = await req(`${base}?limit=2&resourceVersion=0`);
    expect(r.body.items).toHaveLength(10);
    expect(r.body.metadata.continue).toBeUndefined();
  });

  it('should serve an exact past resourceVersion from history', async () => {
    const before = sim.storage.resourceVersion;
    sim.storage.create('pods', pod('late'), 'default');
    const exact = await req(`${base}?resourceVersion=${before}&resourceVersionMatch=Exact`);
    expect(exact.code).toBe(200);
    expect(exact.body.metadata.resourceVersion).toBe(before);
    expect(exact.body.items.map((p: any) => p.metadata.name)).not.toContain('late');
    // RV=N with a limit and no match is exact as well
    const legacy = await req(`${base}?resourceVersion=${before}&limit=100`);
    expect(legacy.body.metadata.resourceVersion).toBe(before);
    // NotOlderThan serves the newest
    const newer = await req(`${base}?resourceVersion=${before}&resourceVersionMatch=NotOlderThan`);
    expect(newer.body.items.map((p: any) => p.metadata.name)).toContain('late');
    sim.storage.delete('pods', 'default', 'late');
  });

  it('should refuse forbidden option combinations with 422 and 400', async () => {
    expect((await req(`${base}?resourceVersion=0&resourceVersionMatch=Exact`)).code).toBe(422);
    expect((await req(`${base}?resourceVersionMatch=NotOlderThan`)).code).toBe(422);
    expect((await req(`${base}?resourceVersionMatch=Sometimes&resourceVersion=1`)).code).toBe(422);
    expect((await req(`${base}?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=`)).code).toBe(422);
    const first = await req(`${base}?limit=2`);
    const c = encodeURIComponent(first.body.metadata.continue);
    const withRv = await req(`${base}?limit=2&continue=${c}&resourceVersion=5`);
    expect(withRv.code).toBe(400);
    expect(withRv.body.reason).toBe('BadRequest');
    expect((await req(`${base}?limit=2&continue=${c}&resourceVersion=0`)).code).toBe(200);
    expect((await req(`${base}?limit=2&continue=not-a-token`)).code).toBe(400);
    expect((await req(`${base}?resourceVersion=abc`)).code).toBe(400);
  });

  it('should answer 504 ResourceVersionTooLarge with Retry-After for a future revision', async () => {
    const future = Number(sim.storage.resourceVersion) + 1000;
    const r = await req(`${base}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`);
    expect(r.code).toBe(504);
    expect(r.body.reason).toBe('Timeout');
    expect(r.body.message).toBe(`Timeout: Too large resource version: ${future}, current: ${sim.storage.resourceVersion}`);
    expect(r.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
    expect(r.body.details.retryAfterSeconds).toBe(1);
    expect(r.headers.get('retry-after')).toBe('1');
  });

  it('should filter with label selectors and omit remainingItemCount', async () => {
    const even = await req(`${base}?labelSelector=${encodeURIComponent('app=even')}`);
    expect(even.body.items.map((p: any) => p.metadata.labels.idx)).toEqual(['0', '2', '4', '6', '8']);
    const notin = await req(`${base}?labelSelector=${encodeURIComponent('idx notin (0,1,2),app!=odd')}`);
    expect(notin.body.items.map((p: any) => p.metadata.labels.idx)).toEqual(['4', '6', '8']);
    const paged = await req(`${base}?limit=2&labelSelector=app%3Deven`);
    expect(paged.body.items).toHaveLength(2);
    expect(paged.body.metadata.continue).toBeDefined();
    expect(paged.body.metadata.remainingItemCount).toBeUndefined();
    const exists = await req(`${base}?labelSelector=!idx`);
    expect(exists.body.items).toEqual([]);
    const bad = await req(`${base}?labelSelector=${encodeURIComponent('a in (b')}`);
    expect(bad.code).toBe(400);
  });

  it('should filter with field selectors and refuse unknown fields', async () => {
    const r = await req(`${sim.url}/api/v1/pods?fieldSelector=${encodeURIComponent('metadata.namespace=other')}`);
    expect(r.body.items.map((p: any) => p.metadata.name)).toEqual(['x']);
    const byName = await req(`${base}?fieldSelector=${encodeURIComponent('metadata.name!=p0')}`);
    expect(byName.body.items).toHaveLength(9);
    const phase = await req(`${base}?fieldSelector=${encodeURIComponent('status.phase=Pending')}`);
    expect(phase.body.items).toHaveLength(10);
    const bad = await req(`${base}?fieldSelector=${encodeURIComponent('spec.bogus=1')}`);
    expect(bad.code).toBe(400);
    expect(bad.body.kind).toBe('Status');
  });

  it('should answer a Table when kubectl asks for one', async () => {
    const r = await req(`${base}?limit=500`, {
      headers: {
        Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      },
    });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(
      expect.arrayContaining(['Name', 'Ready', 'Status', 'Restarts', 'Age']),
    );
    expect(r.body.rows).toHaveLength(10);
    expect(r.body.rows[0].object.kind).toBe('PartialObjectMetadata');
    expect(r.body.metadata.resourceVersion).toBe(sim.storage.resourceVersion);
  });
});

describe('LIST with compaction', () => {
  it('should expire continue tokens and exact revisions with 410 once compacted', async () => {
    const sim = await startApiServer({ port: 0, history: { maxEvents: 5 } });
    try {
      for (let i = 0; i < 6; i++) sim.storage.create('configmaps', { metadata: { name: `c${i}` } }, 'default');
      const base = `${sim.url}/api/v1/namespaces/default/configmaps`;
      const first = await req(`${base}?limit=2`);
      const oldRv = first.body.metadata.resourceVersion;
      for (let i = 0; i < 6; i++) sim.storage.update('configmaps', { metadata: { name: 'c0' }, data: { n: String(i) } }, 'default', 'c0');
      const next = await req(`${base}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
      expect(next.code).toBe(410);
      expect(next.body.reason).toBe('Expired');
      expect(typeof next.body.metadata.continue).toBe('string');
      // the inconsistent continuation serves the rest at the current revision
      const rest = await req(`${base}?limit=10&continue=${encodeURIComponent(next.body.metadata.continue)}`);
      expect(rest.code).toBe(200);
      expect(rest.body.items.map((c: any) => c.metadata.name)).toEqual(['c2', 'c3', 'c4', 'c5']);
      const exact = await req(`${base}?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
      expect(exact.code).toBe(410);
      expect(exact.body.reason).toBe('Expired');
    } finally {
      await sim.close();
    }
  });

  it("should keep serving a resource's continue tokens and exact revisions while another kind churns", async () => {
    const sim = await startApiServer({ port: 0, history: { maxEvents: 5 } });
    try {
      for (let i = 0; i < 4; i++) sim.storage.create('configmaps', { metadata: { name: `c${i}` } }, 'default');
      const base = `${sim.url}/api/v1/namespaces/default/configmaps`;
      const first = await req(`${base}?limit=2`);
      sim.storage.create('configmaps', { metadata: { name: 'c9' } }, 'default');
      for (let i = 0; i < 10; i++) sim.storage.create('pods', pod(`p${i}`), 'default');
      const next = await req(`${base}?limit=10&continue=${encodeURIComponent(first.body.metadata.continue)}`);
      expect(next.code).toBe(200);
      expect(next.body.items.map((c: any) => c.metadata.name)).toEqual(['c2', 'c3']);
      const exact = await req(`${base}?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
      expect(exact.code).toBe(200);
      expect(exact.body.items).toHaveLength(4);
    } finally {
      await sim.close();
    }
  });

  it('should compact by age', async () => {
    const ts = testScheduler(); // the history's clock
    const sim = await startApiServer({ port: 0, history: { maxAgeMs: 50 }, scheduler: ts });
    try {
      sim.storage.create('configmaps', { metadata: { name: 'a' } }, 'default');
      const first = await req(`${sim.url}/api/v1/namespaces/default/configmaps?limit=1`);
      sim.storage.create('configmaps', { metadata: { name: 'b' } }, 'default');
      const exact = () =>
        req(
          `${sim.url}/api/v1/namespaces/default/configmaps?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`,
        );
      /** Moves the virtual clock to `ms` (it moves with what it runs). */
      const clockTo = (ms: number) => {
        ts.schedule(() => {}, ms - ts.now());
        flushTo(ts, ms);
      };
      clockTo(50);
      expect((await exact()).code).toBe(200); // 50 ms old: kept
      clockTo(51);
      expect((await exact()).code).toBe(410);
    } finally {
      await sim.close();
    }
  });
});
