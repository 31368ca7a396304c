/**
 * Sharded controllers (`controllerFor(…, { shard })`, three replicas in one process) over real HTTP, against the simulator and a
 * real kube-apiserver, with KEP-5866's ShardedListAndWatch gate on (the server filters by
 * `shardSelector` and echoes it in `metadata.shardInfo`) and off (it ignores the parameter; the
 * replicas filter alone).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  controllerFor,
  fetchApiClient,
  InvalidReconcileResultError,
  type ControllerError,
  type Logger,
  type Reconcile,
  type RunningController,
} from '@rxinformer/controller';
import {
  createInformerFactory,
  fetchListerWatcher,
  type KubeObject,
  type ListerWatcher,
  type ReflectorStatus,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import type { Lease } from '@rxinformer/core/leader-election';
import { parseShardSelector, shardMatcher, shardSelectorFor, ShardSelectorError, type ShardRingState } from '@rxinformer/core/sharding';
import { inParallel, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { tap } from 'rxjs';
import { waitFor } from './simHarness.ts';
import { PAGED } from '@rxinformer/testing';

const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 150 };
type Reconciled = { key: string; by: string; from: number; to: number };

/** Keys reconciled by two replicas at overlapping times. */
function overlaps(log: Reconciled[]): string[] {
  const byKey = new Map<string, Reconciled[]>();
  for (const e of log) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  const out: string[] = [];
  for (const [key, list] of byKey)
    for (const a of list) for (const b of list) if (a.by < b.by && a.from <= b.to && b.from <= a.to) out.push(`${key}: ${a.by} ${b.by}`);
  return out;
}

/** What the server sent a replica (before its own filter): list pages' shardInfo, and objects of lists and watches out of its shard. */
interface Sent {
  shardInfos: unknown[];
  outOfShard: number;
  objects: number;
}

/** `lw`, noting what the server sent for each shard selector asked for. */
function noting(lw: ListerWatcher<KubeObject>, sent: Sent): ListerWatcher<KubeObject> {
  const check = (selector: string | undefined, o: KubeObject) => {
    sent.objects++;
    if (selector !== undefined && !shardMatcher(parseShardSelector(selector))(o)) sent.outOfShard++;
  };
  return {
    list: (options) =>
      lw.list(options).pipe(
        tap((page) => {
          sent.shardInfos.push((page.metadata as { shardInfo?: unknown } | undefined)?.shardInfo);
          for (const o of page.items) check(options.shardSelector, o);
        }),
      ),
    watch: (options) =>
      lw
        .watch(options)
        .pipe(tap((e) => e.type !== 'BOOKMARK' && e.type !== 'ERROR' && e.type !== 'OPENED' && check(options.shardSelector, e.object))),
  };
}

describe.each(serverKinds())('a sharded controller against the %s server', (kind) => {
  describe.each([true, false])('with ShardedListAndWatch %s', (gate) => {
    let server: TestServer;
    let ns: string;
    let path: string;
    beforeAll(async () => {
      server = await startTestServer(kind, { sim: { seed: 5 }, featureGates: { ShardedListAndWatch: gate } });
      ns = await server.namespace('shards');
      path = `/api/v1/namespaces/${ns}/configmaps`;
      await inParallel(300, 16, (i) => server.api.create(path, { metadata: { name: `cm-${i}` } }));
    }, START_TIMEOUT_MS);
    afterAll(() => server?.close());

    const replica = (identity: string, options: { ring: string; slots: number; sent?: Sent }) => {
      const source = fetchListerWatcher({ ...server.fetchOptions(), path });
      return {
        source: options.sent ? noting(source, options.sent) : source,
        // What the server sent is read from list pages (their shardInfo): that replica pages.
        ...(options.sent && { informer: { reflector: PAGED } }),
        client: fetchApiClient(server.fetchOptions()),
        leases: fetchListerWatcher<Lease>({ ...server.fetchOptions(), path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases` }),
        namespace: ns,
        identity,
        ...timing,
        ...options,
      };
    };

    const configMaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
    const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
    /** A started sharded controller of replica `identity`, and its primary informer. */
    const sharded = (
      identity: string,
      options: { ring: string; slots: number; sent?: Sent; concurrency?: number; maxRetries?: number },
      reconcile: Reconcile<KubeObject>,
    ): { run: RunningController; informer: SharedInformer<KubeObject>; stop(): Promise<void> } => {
      const { concurrency, maxRetries, ...ring } = options;
      const factory = createInformerFactory((resource, scope) =>
        fetchListerWatcher({ ...server.fetchOptions(), resource, namespace: scope.namespace }),
      );
      const ctl = controllerFor(factory, configMaps, {
        name: `${ring.ring}-${identity}`,
        concurrency,
        maxRetries,
        logger: quiet,
        shard: replica(identity, ring),
      }).reconcile(reconcile);
      const run = ctl.start();
      return { run, informer: ctl.sourceInformers()[0].informer, stop: async () => (await run.stop(), factory.shutdown()) };
    };

    it(`should ${gate ? 'answer with the shard the selector asks for, as the local filter' : 'ignore the selector, and the local filter split the objects'}`, async () => {
      const names = (items: KubeObject[]) => items.map((o) => o.metadata!.name!).sort();
      const all: KubeObject[] = (await server.api.get(path)).items;
      const shards = [0, 1, 2].map((r) =>
        shardSelectorFor(
          [...Array(22).keys()].map((i) => r * 22 + i).filter((s) => s < 64),
          64,
        )!,
      );
      const local = shards.map((s) => names(all.filter(shardMatcher(parseShardSelector(s)))));
      for (const [i, selector] of shards.entries()) {
        const answer = await server.api.get(`${path}?shardSelector=${encodeURIComponent(selector)}`);
        expect(answer.metadata.shardInfo).toEqual(gate ? { selector } : undefined);
        expect(names(answer.items)).toEqual(gate ? local[i] : names(all));
      }
      expect(local.flat().sort()).toEqual(names(all)); // every object in one shard exactly
      expect(local.every((l) => l.length > 50)).toBe(true);
      // Short bounds: kube-apiserver refuses them with a 500 (the simulator with a 400); so does our parser.
      const short = "shardRange(object.metadata.uid, '0x0', '0x8')";
      expect(() => parseShardSelector(short)).toThrow(ShardSelectorError);
      if (gate) {
        const bad = await server.api.call('GET', `${path}?shardSelector=${encodeURIComponent(short)}`);
        expect(bad.status).toBeGreaterThanOrEqual(400);
        expect(bad.body.message).toMatch(/invalid shard ?selector/i);
      }
    });

    it('should share the keys among replicas, move a stopped replica slots to the others, and never reconcile a key in two at once', async () => {
      const log: Reconciled[] = [];
      const sent: Sent = { shardInfos: [], outOfShard: 0, objects: 0 };
      const reconcile =
        (by: string) =>
        async ({ key }: { key: string }) => {
          const from = Date.now();
          await new Promise((r) => setTimeout(r, 2));
          log.push({ key, by, from, to: Date.now() });
        };
      const replicas = ['r1', 'r2', 'r3'].map((id) => {
        const ctl = sharded(id, { ring: 'cm', slots: 64, sent, concurrency: 4 }, reconcile(id));
        const seen: { ring?: ShardRingState; status?: ReflectorStatus } = {};
        ctl.run.ring!.state$.subscribe((r) => (seen.ring = r));
        ctl.informer.status$.subscribe((st) => (seen.status = st));
        return { id, ctl, seen };
      });
      try {
        await shareAndMove(replicas, log, sent);
      } finally {
        await Promise.all(replicas.map((r) => r.ctl.stop()));
      }
    }, 90_000);

    /** What each replica holds, for a failure's message. */
    const states = (
      replicas: { id: string; ctl: ReturnType<typeof sharded>; seen: { ring?: ShardRingState; status?: ReflectorStatus } }[],
    ) =>
      replicas.map(({ id, ctl, seen }) => ({
        id,
        phase: seen.ring?.phase,
        members: seen.ring?.members.join(),
        active: seen.ring?.active.length,
        announced: seen.ring?.announced.length,
        draining: seen.ring?.draining.length,
        warning: seen.ring?.warning?.message,
        synced: ctl.informer.hasSynced(),
        cached: ctl.informer.getStore().size,
        reflector: `${seen.status?.phase} ${seen.status?.lastError?.message ?? ''}`,
      }));

    async function shareAndMove(replicas: Parameters<typeof states>[0], log: Reconciled[], sent: Sent) {
      const keys = () => new Set(log.map((e) => e.key));
      const all = await waitFor(() => keys().size === 300, 30_000);
      expect({ reconciled: keys().size, ...(!all && { replicas: states(replicas) }) }).toEqual({ reconciled: 300 });
      const cached = replicas.map((r) => r.ctl.informer.getStore().size);
      expect(cached.reduce((a, b) => a + b)).toBe(300); // each caches its share only
      for (const n of cached) expect(n).toBeLessThan(200);
      // Objects made now come through the replicas' watches.
      await inParallel(30, 8, (i) => server.api.create(path, { metadata: { name: `late-${i}` } }));
      expect(await waitFor(() => keys().size === 330, 30_000)).toBe(true);
      // With the gate the server sent each replica its shard only, and said so; without, everything.
      expect(sent.shardInfos.length).toBeGreaterThan(0);
      expect(sent.shardInfos.every((i) => (gate ? i !== undefined : i === undefined))).toBe(true);
      expect(sent.outOfShard === 0).toBe(gate);
      // r3 leaves: its keys are reconciled by the others, at once (its Lease released).
      const r3Keys = new Set(log.filter((e) => e.by === 'r3').map((e) => e.key));
      const mark = log.length;
      await replicas[2].ctl.stop();
      expect(await waitFor(() => [...r3Keys].every((k) => log.slice(mark).some((e) => e.key === k && e.by !== 'r3')), 30_000)).toBe(true);
      expect(overlaps(log)).toEqual([]);
    }

    it('should report a reconcile result it cannot act on, returned as is or resolved', async () => {
      const errors: ControllerError[] = [];
      const ctl = sharded('solo', { ring: 'cm-invalid-results', slots: 16, maxRetries: 0 }, (({ key }: { key: string }) =>
        // A number is no ReconcileResult, returned as is or resolved.
        key === `${ns}/cm-1` ? (5 as never) : key === `${ns}/cm-2` ? Promise.resolve({ requeueAfterMs: -1 }) : Promise.resolve()) as never);
      ctl.run.errors$.subscribe((e) => errors.push(e));
      try {
        expect(await waitFor(() => errors.length >= 2, 20_000)).toBe(true);
        expect(errors.map((e) => [e.key, e.error instanceof InvalidReconcileResultError]).sort()).toEqual([
          [`${ns}/cm-1`, true],
          [`${ns}/cm-2`, true],
        ]);
      } finally {
        await ctl.stop();
      }
    }, 30_000);
  });
});
