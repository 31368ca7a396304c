/** KEP-5866's shardSelector on list and watch, behind its gate; the Lease history; request faults. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject } from '@rxinformer/core';
import { shardSelectorFor, slotOf } from '@rxinformer/core/sharding';
import { LeaseHistory, startApiServer, type ApiServer } from '../src/index.ts';

let gated: ApiServer;
let plain: ApiServer;
beforeAll(async () => {
  gated = await startApiServer({ port: 0, seed: 2, shardedListAndWatch: true });
  plain = await startApiServer({ port: 0, seed: 2 });
  for (const sim of [gated, plain])
    for (let i = 0; i < 50; i++) sim.storage.create('configmaps', { metadata: { name: `cm-${i}` } }, 'default');
});
afterAll(async () => {
  await Promise.all([gated.close(), plain.close()]);
});

const selector = shardSelectorFor([0], 2)!; // the lower half of the hash space
const path = (extra = '') => `/api/v1/namespaces/default/configmaps?shardSelector=${encodeURIComponent(selector)}${extra}`;
const inShard = (o: KubeObject) => slotOf(o, 2) === 0;

describe('shardSelector', () => {
  it('should list only the objects in range, and echo the selector as shardInfo, with the gate on', async () => {
    const body = (await (await fetch(gated.url + path())).json()) as {
      items: KubeObject[];
      metadata: { shardInfo?: { selector: string } };
    };
    const all = gated.storage.list('configmaps', 'default');
    expect(body.items.map((o) => o.metadata?.name).sort()).toEqual(
      all
        .filter(inShard)
        .map((o) => o.metadata?.name)
        .sort(),
    );
    expect(body.items.length).toBeGreaterThan(10);
    expect(body.items.length).toBeLessThan(40);
    expect(body.metadata.shardInfo).toEqual({ selector });
  });

  // shardSelectorFor ends the last slot's range at 2^64, which kube-apiserver 1.36.3 takes (test/fidelity)
  it('should take 0x10000000000000000 (2^64) as the end of the upper half, and refuse bounds kube-apiserver refuses', async () => {
    const upper = shardSelectorFor([1], 2)!;
    expect(upper).toContain("'0x10000000000000000'");
    const list = async (sel: string) => {
      const r = await fetch(`${gated.url}/api/v1/namespaces/default/configmaps?shardSelector=${encodeURIComponent(sel)}`);
      return { status: r.status, body: (await r.json()) as { items?: KubeObject[]; message?: string } };
    };
    const got = await list(upper);
    expect(got.status).toBe(200);
    expect(got.body.items!.map((o) => o.metadata?.name).sort()).toEqual(
      gated.storage
        .list('configmaps', 'default')
        .filter((o) => slotOf(o, 2) === 1)
        .map((o) => o.metadata?.name)
        .sort(),
    );
    const range = (lo: string, hi: string) => `shardRange(object.metadata.uid, '${lo}', '${hi}')`;
    for (const [sel, message] of [
      [range('0x0000000000000000', '0x20000000000000000'), "hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64)"],
      [range('0x0000000000000000', '0xFFFFFFFFFFFFFFFF'), 'hexEnd: invalid hex character "F"'],
      [range('0x8000000000000000', '0x0000000000000000'), 'shard range start 0x8000000000000000 must be less than end 0x0000000000000000'],
    ]) {
      const refused = await list(sel);
      expect([refused.status, refused.body.message]).toEqual([500, expect.stringContaining(message)]);
    }
  });

  it('should ignore it with the gate off, as an older server does', async () => {
    const body = (await (await fetch(plain.url + path())).json()) as { items: KubeObject[]; metadata: Record<string, unknown> };
    expect(body.items).toHaveLength(50);
    expect(body.metadata.shardInfo).toBeUndefined();
  });

  // kube-apiserver 1.36 answers a malformed selector with a 500 without a reason (test/fidelity)
  it('should answer 500 with the problem for a malformed selector', async () => {
    const r = await fetch(
      `${gated.url}/api/v1/namespaces/default/configmaps?shardSelector=${encodeURIComponent("shardRange(metadata.uid, '0x0', '0x8')")}`,
    );
    expect(r.status).toBe(500);
    const status = (await r.json()) as { message: string; reason?: string };
    expect(status.message).toMatch(/^invalid shard selector: unsupported field path "metadata.uid"/);
    expect(status.reason).toBeUndefined();
    const watch = await fetch(
      `${gated.url}/api/v1/namespaces/default/configmaps?watch=true&shardSelector=${encodeURIComponent('shardRange(')}`,
    );
    expect(watch.status).toBe(500);
  });

  it('should watch only the events of objects in range', async () => {
    const abort = new AbortController();
    const r = await fetch(gated.url + path(`&watch=true&resourceVersion=${gated.storage.resourceVersion}`), { signal: abort.signal });
    const created = Array.from({ length: 20 }, (_, i) => gated.storage.create('configmaps', { metadata: { name: `w-${i}` } }, 'default'));
    const reader = r.body!.getReader();
    let text = '';
    const expected = created.filter(inShard).length;
    while (text.split('\n').filter((l) => l.includes('"ADDED"')).length < expected)
      text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const names = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { object: KubeObject }).object.metadata?.name);
    expect(names).toEqual(created.filter(inShard).map((o) => o.metadata?.name));
  });
});

describe('LeaseHistory and failRequests', () => {
  it('should record who held a Lease from when to when, and fail only the matching client', async () => {
    const history = new LeaseHistory(gated.storage.storage);
    const lease = (holder: string) => ({ metadata: { name: 'l', namespace: 'default' }, spec: { holderIdentity: holder } });
    gated.storage.create('leases.coordination.k8s.io', lease('a'), 'default');
    const clear = gated.faults.failRequests({ userAgent: 'blocked/1', resource: 'leases', on: 'write' });
    const put = (ua: string, holder: string) =>
      fetch(`${gated.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/l`, {
        method: 'PUT',
        headers: { 'User-Agent': ua, 'Content-Type': 'application/json' },
        body: JSON.stringify(lease(holder)),
      });
    expect((await put('blocked/1', 'x')).status).toBe(500);
    expect(
      (await fetch(`${gated.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/l`, { headers: { 'User-Agent': 'blocked/1' } }))
        .status,
    ).toBe(200);
    expect((await put('other/1', 'b')).status).toBe(200);
    clear();
    expect((await put('blocked/1', '')).status).toBe(200);
    const terms = history.terms('default/l');
    expect(terms.map((t) => t.holder)).toEqual(['a', 'b', '']);
    expect(terms[0].to).toBe(terms[1].from);
    expect(history.holderAt('default/l', terms[1].from)).toBe('b');
    history.close();
  });
});
