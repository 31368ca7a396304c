/**
 * Who held each Lease, from when to when, as the simulator committed the writes: what checks of
 * leader election read ("never two holders", "released at once").
 */
import type { KubeObject } from '@rxinformer/core';
import type { Storage } from './storage.ts';

/** One holder's term of a Lease (server commit times, ms since the epoch). */
export interface LeaseTerm {
  /** `namespace/name` of the Lease. */
  readonly lease: string;
  /** The holder (`''`: nobody, after a release). */
  readonly holder: string;
  /** When the Lease first named it. */
  readonly from: number;
  /** When the Lease first named another; undefined while it still names it. */
  readonly to?: number;
}

const LEASES = 'coordination.k8s.io/v1/leases';

/**
 * Records the holder of every Lease at each committed write, from now on.
 *
 * @example
 * const history = new LeaseHistory(sim.storage.storage);
 * history.terms('default/my-controller'); // [{ holder: 'a', from, to }, { holder: 'b', from }]
 */
export class LeaseHistory {
  readonly #terms = new Map<string, { holder: string; from: number; to?: number }[]>();
  readonly #stop: () => void;

  constructor(storage: Storage) {
    this.#stop = storage.subscribe(LEASES, (e) => {
      const holder = e.type === 'DELETED' ? '' : holderOf(e.object);
      const list = this.#terms.get(e.key) ?? [];
      const last = list.at(-1);
      if (last?.holder === holder) return;
      if (last) last.to = e.time;
      list.push({ holder, from: e.time });
      this.#terms.set(e.key, list);
    });
  }

  /** The terms of one Lease (`namespace/name`), oldest first. */
  terms(lease: string): LeaseTerm[] {
    return (this.#terms.get(lease) ?? []).map((t) => ({ lease, ...t }));
  }

  /** Every Lease's terms. */
  all(): LeaseTerm[] {
    return [...this.#terms.keys()].flatMap((k) => this.terms(k));
  }

  /** The holder of `lease` at `time` (`''` when none). */
  holderAt(lease: string, time: number): string {
    let holder = '';
    for (const t of this.#terms.get(lease) ?? []) if (t.from <= time) holder = t.holder;
    return holder;
  }

  /** Stops recording. */
  close(): void {
    this.#stop();
  }
}

function holderOf(obj: KubeObject): string {
  const h = (obj as { spec?: { holderIdentity?: unknown } }).spec?.holderIdentity;
  return typeof h === 'string' ? h : '';
}
