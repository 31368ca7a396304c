import { describe, expect, it } from '@jest/globals';
import { NEVER, defer, finalize, first, of, timer } from 'rxjs';
import { FakeLeaseServer, page, testObject, virtualClock } from '@rxinformer/testing';
import { assignSlots } from './shardAssignment.ts';
import { slotOf } from './shardHash.ts';
import { runShardedController } from './shardedController.ts';
import type { ControllerPhase } from '../workqueue/runController.ts';
import type { KubeObject } from '../types.ts';
import { memberOptions } from '../../test/ringMembers.ts';

const SLOTS = 256;
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const objects = Array.from({ length: 60 }, (_, i) => testObject(`cm-${i}`, '1', `uid-${i}`));
/** The slots `b` owns once it joins `a`. */
const bSlots = new Set(assignSlots(SLOTS, ['a', 'b']).flatMap((owner, slot) => (owner === 'b' ? [slot] : [])));

interface Reconcile {
  readonly key: string;
  readonly by: string;
  readonly from: number;
  to?: number;
}

/**
 * Replica `a` holds every slot and reconciles the keys of `b`'s future slots for 6 s (the others for
 * 10 ms), from 320 ms on; `b` joins at 1 s; `a` is stopped as soon as it starts handing `b`'s slots
 * over (a rolling update right after the new pod joined); `b` is stopped at 21 s.
 */
async function stopWhileHandingOver() {
  const clock = virtualClock(50);
  const ts = clock.ts;
  const server = new FakeLeaseServer(ts);
  const log: Reconcile[] = [];
  const source = { list: () => of(page(objects, '1')), watch: () => NEVER };
  let phase: ControllerPhase | undefined;
  let phaseAtRelease: ControllerPhase | undefined;
  const replica = (who: string, longMs: number) => {
    const member = memberOptions(server, who, SLOTS);
    const client = member.client;
    return runShardedController<KubeObject>({
      ...member,
      ...timing,
      client: {
        ...client,
        update: (lease) => {
          if (who === 'a' && lease.spec?.holderIdentity === '') phaseAtRelease ??= phase; // a's controller as its Lease goes
          return client.update(lease);
        },
      },
      scheduler: ts,
      source,
      concurrency: 64,
      reconcile: (key, object) =>
        defer(() => {
          const entry: Reconcile = { key, by: who, from: ts.now() };
          log.push(entry);
          const ms = object && bSlots.has(slotOf(object, SLOTS)) ? longMs : 10;
          return timer(ms, ts).pipe(finalize(() => (entry.to = ts.now())));
        }),
    });
  };
  const a = replica('a', 6000);
  a.metrics$.subscribe((m) => (phase = m.phase));
  let aStopped: Promise<void> | undefined;
  a.ring.state$.pipe(first((s) => s.draining.length > 0)).subscribe(() => {
    aStopped = a.stop();
  });
  await clock.advance(1000);
  const b = replica('b', 10);
  await clock.advance(20_000);
  await aStopped;
  const bStopped = b.stop();
  await clock.advance(25_000);
  await bStopped;
  const released = server.writes.find((w) => w.by === 'a' && w.holder === '')?.at;
  return { log, released, phaseAtRelease };
}

/** Keys reconciled by two replicas at overlapping times. */
function overlaps(log: Reconcile[]): string[] {
  const out: string[] = [];
  for (const x of log)
    for (const y of log)
      if (x.key === y.key && x.by < y.by && x.from < (y.to ?? Infinity) && y.from < (x.to ?? Infinity))
        out.push(`${x.key}: ${x.by} ${x.from}-${x.to}, ${y.by} ${y.from}-${y.to}`);
  return out;
}

describe('runShardedController', () => {
  it('should never reconcile a key in two replicas at once when a replica stops while handing slots over', async () => {
    // a released its Lease at 1.2 s, having drained only the slots it still held: b took every slot
    // at once and reconciled the keys of its share while a's 6 s reconciles of them still ran.
    const { log, released } = await stopWhileHandingOver();
    const long = log.filter((r) => r.by === 'a' && r.to! - r.from === 6000);
    expect(long.length).toBeGreaterThan(10); // a was busy with b's share when it stopped
    expect(overlaps(log)).toEqual([]);
    expect(released).toBeGreaterThanOrEqual(Math.max(...long.map((r) => r.to!)));
    expect(new Set(log.filter((r) => r.by === 'b').map((r) => r.key)).size).toBe(objects.length); // b took over everything
  });

  it('should reconcile the keys of slots it lost and got back, though a relist finds them unchanged', async () => {
    // Its Lease lost at the renew deadline (writes failing, as on an overloaded node), the replica
    // dropped the queued keys of its slots; when it got the same slots back, the relist reported
    // the cached objects as unchanged (Replaced) and they were never reconciled.
    const clock = virtualClock(50);
    const server = new FakeLeaseServer(clock.ts);
    const reconciled = new Set<string>();
    const ctl = runShardedController<KubeObject>({
      ...memberOptions(server, 'a', SLOTS),
      ...timing,
      scheduler: clock.ts,
      source: { list: () => of(page(objects, '1')), watch: () => NEVER },
      concurrency: 1,
      reconcile: (key) => timer(200, clock.ts).pipe(finalize(() => reconciled.add(key))),
    });
    const phases: string[] = [];
    ctl.ring.state$.subscribe((r) => phases.at(-1) !== r.phase && phases.push(r.phase));
    await clock.advance(3000); // (to 3 s: advance takes the time to reach)
    const before = reconciled.size;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(objects.length);
    server.failing.set('a', 'writes');
    await clock.advance(8000); // past the renew deadline: its slots drained
    server.failing.delete('a');
    await clock.advance(40_000); // member again, with every slot
    expect(phases).toEqual(['joining', 'member', 'joining', 'member']);
    expect(reconciled.size).toBe(objects.length);
    const stopped = ctl.stop();
    await clock.advance(50_000);
    await stopped;
  });

  it('should stop its workers before it lets go of the ring', async () => {
    // controller-runtime releases the Lease only once every runnable has returned; stop() released
    // the ring first, then stopped the controller.
    const { phaseAtRelease } = await stopWhileHandingOver();
    expect(phaseAtRelease).toBe('stopped');
  });
});
