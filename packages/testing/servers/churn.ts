/**
 * Churn written through a server's API, as clients of a cluster write it: creates, updates,
 * deletes and delete-then-recreate under the same name (a new UID), by a few concurrent writers.
 * The same on the simulator and on kube-apiserver, unlike the simulator's in-process load generator.
 */
import { ApiCallError, type TestApi } from './api.ts';

/** The share of each kind of change; need not sum to 1. */
export interface ApiChurnMix {
  create?: number;
  update?: number;
  delete?: number;
  recreate?: number;
}

/** What a churn did so far (successful writes only). */
export interface ApiChurnCounters {
  created: number;
  updated: number;
  deleted: number;
  recreated: number;
}

/** A churn under way. */
export interface ApiChurnRun {
  readonly counters: ApiChurnCounters;
  /** Resolves when `count` changes are made, or once stopped. */
  readonly done: Promise<void>;
  /** Stops the writers; resolves when the writes in flight have been answered. */
  stop(): Promise<void>;
}

/** Options of `apiChurn`. */
export interface ApiChurnOptions {
  /** Collection paths the objects spread over (slot i goes to `collections[i % n]`), e.g. `/api/v1/namespaces/a/pods`. */
  collections: string[];
  /** The body of a new object named `name`. */
  make(name: string): Record<string, unknown>;
  /** Object names are `prefix-slot`. Default `churn`. */
  prefix?: string;
  /** Seed of the random choices. Default 1. */
  seed?: number;
}

/** A small seeded generator (mulberry32) in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function inParallel(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** A conflict between two writers of the same slot, or an object gone meanwhile: part of churn, not a failure. */
const raced = (e: unknown) => e instanceof ApiCallError && (e.status === 404 || e.status === 409);

/**
 * The server restarting under the writers: a call that got no answer (its connection reset, cut
 * mid-body, refused meanwhile) or one refused while it starts (429, 503). Wait a moment, go on.
 */
const restarting = (e: unknown) => {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^(UND_ERR_|E[A-Z]+$)/.test(code)) return true; // undici's, or the system's (ECONNRESET...)
  return e instanceof ApiCallError && (e.status === 429 || e.status === 503);
};

/**
 * Churn of `options.make` objects through `api`.
 *
 * @example
 * const churn = apiChurn(server.api, { collections: [`/api/v1/namespaces/${ns}/configmaps`], make: (name) => ({ metadata: { name } }) });
 * await churn.seed(300);
 * const run = churn.run({ count: 200, mix: { create: 2, update: 5, delete: 2, recreate: 2 } });
 * await run.done;
 */
export function apiChurn(api: TestApi, options: ApiChurnOptions) {
  const random = seeded(options.seed ?? 1);
  const prefix = options.prefix ?? 'churn';
  let slots = 0;
  const place = (slot: number) => {
    const collection = options.collections[slot % options.collections.length];
    const name = `${prefix}-${slot}`;
    return { collection, name, path: `${collection}/${name}` };
  };
  const create = async (slot: number) => {
    const { collection, name } = place(slot);
    const body = options.make(name);
    await api.create(collection, { ...body, metadata: { ...(body.metadata as object), name } });
  };
  return {
    /** Creates `count` objects in new slots, `concurrency` at a time. */
    seed: async (count: number, concurrency = 16) => {
      const first = slots;
      slots += count;
      await inParallel(count, concurrency, (i) => create(first + i));
    },
    /** Makes `count` random changes (or until stopped), `concurrency` writers at a time. */
    run: ({ count = Infinity, concurrency = 4, mix = {} }: { count?: number; concurrency?: number; mix?: ApiChurnMix }): ApiChurnRun => {
      const m = { create: mix.create ?? 2, update: mix.update ?? 5, delete: mix.delete ?? 2, recreate: mix.recreate ?? 1 };
      const total = m.create + m.update + m.delete + m.recreate;
      const counters: ApiChurnCounters = { created: 0, updated: 0, deleted: 0, recreated: 0 };
      let made = 0;
      let stopped = false;
      const change = async () => {
        const slot = Math.floor(random() * Math.max(1, slots));
        let pick = random() * total;
        const { path } = place(slot);
        const current = await api.find(path);
        if (!current) {
          await create(slot);
          counters.created++;
        } else if ((pick -= m.create) < 0) {
          await create(slots++);
          counters.created++;
        } else if ((pick -= m.update) < 0) {
          const labels = { ...current.metadata.labels, churn: String(made) };
          await api.update(path, { ...current, metadata: { ...current.metadata, labels } });
          counters.updated++;
        } else if ((pick -= m.delete) < 0) {
          await api.delete(path);
          counters.deleted++;
        } else {
          await api.delete(path);
          await create(slot);
          counters.recreated++;
        }
      };
      const worker = async () => {
        while (!stopped && made < count) {
          made++;
          await change().catch(async (e) => {
            if (restarting(e)) await new Promise((r) => setTimeout(r, 100));
            else if (!raced(e)) throw e;
          });
        }
      };
      const done = Promise.all(Array.from({ length: concurrency }, worker)).then(() => undefined);
      return {
        counters,
        done,
        stop: async () => {
          stopped = true;
          await done;
        },
      };
    },
  };
}
