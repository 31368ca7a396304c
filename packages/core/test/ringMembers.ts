/**
 * Shard ring members against a `FakeLeaseServer` for tests: one member's options, and a watch over
 * the members' states that notes every slot held by two at once (a slot being drained still counts
 * as held: its work is still running).
 */
import type { SchedulerLike } from 'rxjs';
import type { FakeLeaseServer } from '@rxinformer/testing';
import type { ShardRing, ShardRingOptions, ShardRingState } from '../src/sharding/shardRing.ts';

/** The options of member `who` of ring `cm` in `default` on `server`, with `slots` slots and a fixed jitter. */
export function memberOptions(server: FakeLeaseServer, who: string, slots: number): ShardRingOptions {
  return {
    client: server.client(who),
    leases: server.listerWatcher(who),
    namespace: 'default',
    ring: 'cm',
    identity: who,
    slots,
    random: () => 0.5,
  };
}

/** The members' last states, and every time a slot was held (active or draining) by two of them. */
export class SlotOwners {
  readonly last = new Map<string, ShardRingState>();
  readonly violations: string[] = [];
  readonly #clock: SchedulerLike;

  constructor(clock: SchedulerLike) {
    this.#clock = clock;
  }

  /** Follows `ring`'s states as member `who`. */
  watch(who: string, ring: ShardRing): void {
    ring.state$.subscribe((s) => {
      this.last.set(who, s);
      for (const [other, o] of this.last)
        if (other !== who)
          for (const slot of [...s.active, ...s.draining])
            if (o.active.includes(slot) || o.draining.includes(slot))
              this.violations.push(`${this.#clock.now()}: slot ${slot} in ${who} and ${other}`);
    });
  }

  /** The slots `who` works on now. */
  active(who: string): readonly number[] {
    return this.last.get(who)?.active ?? [];
  }
}
