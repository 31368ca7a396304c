/**
 * A sharded controller (`controllerFor(…, { shard })`) in virtual time, its Leases on an in-memory
 * server: handovers never reconcile a key in two replicas at once, slots lost and got back are
 * reconciled again, and a replica lets go of the ring only once its reconciles have settled.
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, first, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { createInformerFactory, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { assignSlots, slotOf } from '@rxinformer/core/sharding';
import { FakeLeaseServer, page, testObject, virtualClock } from '@rxinformer/testing';
import { controllerFor } from '../builder/controllerBuilder.ts';
import type { RunningController } from '../builder/controller.ts';
import type { Logger } from '../log/logger.ts';

const SLOTS = 256;
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const configMaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const objects = Array.from({ length: 60 }, (_, i) => testObject(`cm-${i}`, '1', `uid-${i}`));
/** The slots `b` owns once it joins `a`. */
const bSlots = new Set(assignSlots(SLOTS, ['a', 'b']).flatMap((owner, slot) => (owner === 'b' ? [slot] : [])));
const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };

interface Reconciled {
  readonly key: string;
  readonly by: string;
  readonly from: number;
  to?: number;
}

/** Waits `ms` of virtual time. */
const sleep = (ts: TestScheduler, ms: number) => new Promise<void>((resolve) => ts.schedule(() => resolve(), ms));

/** A replica `who` of ring `cm` over `server`, reconciling each key for `msOf(object)` of virtual time. */
function replica(
  ts: TestScheduler,
  server: FakeLeaseServer,
  who: string,
  msOf: (o: KubeObject | undefined) => number,
  log: Reconciled[],
  { concurrency = 64, releasing = () => undefined }: { concurrency?: number; releasing?: () => void } = {},
) {
  const client = server.client(who);
  const factory = createInformerFactory(() => ({ list: () => NEVER, watch: () => NEVER }) as never, { scheduler: ts });
  const ctl = controllerFor(factory, configMaps, {
    name: `cm-${who}`,
    scheduler: ts,
    concurrency,
    logger: quiet,
    shard: {
      source: { list: () => of(page(objects, '1')), watch: () => NEVER },
      client: {
        ...client,
        update: (lease) => {
          if (lease.spec?.holderIdentity === '') releasing(); // its Lease goes
          return client.update(lease);
        },
      },
      leases: server.listerWatcher(who),
      namespace: 'default',
      ring: 'cm',
      identity: who,
      slots: SLOTS,
      random: () => 0.5,
      ...timing,
    },
  }).reconcile(async ({ key, object }) => {
    const entry: Reconciled = { key, by: who, from: ts.now() };
    log.push(entry);
    await sleep(ts, msOf(object));
    entry.to = ts.now();
  });
  return { ctl, factory };
}

/** Keys reconciled by two replicas at overlapping times. */
function overlaps(log: Reconciled[]): string[] {
  const out: string[] = [];
  for (const x of log)
    for (const y of log)
      if (x.key === y.key && x.by < y.by && x.from < (y.to ?? Infinity) && y.from < (x.to ?? Infinity))
        out.push(`${x.key}: ${x.by} ${x.from}-${x.to}, ${y.by} ${y.from}-${y.to}`);
  return out;
}

/**
 * Replica `a` holds every slot and reconciles the keys of `b`'s future slots for 6 s (the others
 * for 10 ms); `b` joins at 1 s; `a` is stopped as soon as it starts handing `b`'s slots over.
 */
async function stopWhileHandingOver() {
  const clock = virtualClock(50);
  const ts = clock.ts;
  const server = new FakeLeaseServer(ts);
  const log: Reconciled[] = [];
  const long = (o: KubeObject | undefined) => (o && bSlots.has(slotOf(o, SLOTS)) ? 6000 : 10);
  let activeAtRelease: number | undefined;
  const a = replica(ts, server, 'a', long, log, { releasing: () => (activeAtRelease ??= a.ctl.reconcileStats().activeWorkers) });
  const runA: RunningController = a.ctl.start();
  let aStopped: Promise<void> | undefined;
  runA.ring!.state$.pipe(first((s) => s.draining.length > 0)).subscribe(() => {
    aStopped = runA.stop();
  });
  await clock.advance(1000);
  const b = replica(ts, server, 'b', () => 10, log);
  const runB = b.ctl.start();
  await clock.advance(20_000);
  await aStopped;
  const bStopped = runB.stop();
  await clock.advance(25_000);
  await bStopped;
  const released = server.writes.find((w) => w.by === 'a' && w.holder === '')?.at;
  return { log, released, activeAtRelease };
}

describe('a sharded controller', () => {
  it('should never reconcile a key in two replicas at once when a replica stops while handing slots over', async () => {
    const { log, released, activeAtRelease } = await stopWhileHandingOver();
    const long = log.filter((r) => r.by === 'a' && r.to! - r.from === 6000);
    expect(long.length).toBeGreaterThan(10); // a was busy with b's share when it stopped
    expect(overlaps(log)).toEqual([]);
    expect(released).toBeGreaterThanOrEqual(Math.max(...long.map((r) => r.to!)));
    expect(activeAtRelease).toBe(0); // its workers stopped before it let go of the ring
    expect(new Set(log.filter((r) => r.by === 'b').map((r) => r.key)).size).toBe(objects.length); // b took over everything
  });

  it('should reconcile the keys of slots it lost and got back, though a relist finds them unchanged', async () => {
    const clock = virtualClock(50);
    const server = new FakeLeaseServer(clock.ts);
    const reconciled = new Set<string>();
    const log: Reconciled[] = [];
    const { ctl } = replica(clock.ts, server, 'a', () => 200, log, { concurrency: 1 });
    const run = ctl.start();
    const phases: string[] = [];
    run.ring!.state$.subscribe((r) => phases.at(-1) !== r.phase && phases.push(r.phase));
    await clock.advance(3000);
    for (const r of log) if (r.to !== undefined) reconciled.add(r.key);
    expect(reconciled.size).toBeGreaterThan(0);
    expect(reconciled.size).toBeLessThan(objects.length);
    server.failing.set('a', 'writes');
    await clock.advance(8000); // past the renew deadline: its slots drained
    server.failing.delete('a');
    await clock.advance(40_000); // member again, with every slot
    for (const r of log) if (r.to !== undefined) reconciled.add(r.key);
    expect(phases).toEqual(['joining', 'member', 'joining', 'member']);
    expect(reconciled.size).toBe(objects.length);
    const stopped = run.stop();
    await clock.advance(50_000);
    await stopped;
  });
});
