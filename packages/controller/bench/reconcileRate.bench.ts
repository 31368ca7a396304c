/**
 * Reconciles per second of a builder controller against a bare work-queue loop fed by a handler,
 * on the same informer: first the initial list of N cached objects (the controller started on a
 * warm cache, as a new leader), then N changes, one per object. The reconcile reads the object from
 * the cache and does nothing else, so the figures are the controllers' own cost.
 *
 * Rounds alternate bare and builder in one process (each first every other round, garbage collected
 * before each run), so that load from elsewhere falls on both; the
 * ratio is the median of each round's builder/bare ratio (paired), steadier than a ratio of medians
 * on a loaded machine. The `…Cpu` rows count reconciles per second of this process's CPU time, which
 * other processes' load does not stretch. `ONLY=builder` or `ONLY=bare` runs one kind (for `--cpu-prof`).
 *
 * Then the manager's shutdown: `stop()` to stopped, with the N pods cached and 8 reconciles in
 * flight — waiting on their `signal` (a request in flight), or computing in 1 ms slices that check
 * it — median of the rounds.
 *
 *   npm run bench:controller -- [N] [rounds]
 */
import { performance } from 'node:perf_hooks';
import { NEVER, Subject, concat, of, type Observable } from 'rxjs';
import { createInformerFactory, type KubeObject, type ListerWatcher, type WatchEvent } from '@rxinformer/core';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { controllerFor, createManager } from '../src/index.ts';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONCURRENCY = 4;
const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as const;

const pod = (i: number, rv: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${i}`, namespace: `ns-${i % 20}`, uid: `u-${i}`, resourceVersion: String(rv), generation: rv },
});

/** A factory over an in-memory ListerWatcher: N pods listed, then whatever `changes` emits. */
function warmFactory(changes: Observable<WatchEvent<KubeObject>>) {
  const items = Array.from({ length: N }, (_, i) => pod(i, 1));
  const lw: ListerWatcher<KubeObject> = {
    list: () => of({ items, metadata: { resourceVersion: '1' } }),
    watch: () => concat(changes, NEVER),
  };
  const factory = createInformerFactory(() => lw as never);
  factory.informerFor(pods); // the cache both controllers read, warm before either starts
  return factory;
}

/** What one controller kind does: start on the warm informer, reconcile counting into `seen`. */
type Runner = (factory: ReturnType<typeof warmFactory>, seen: () => void) => { stop(): Promise<void> };

const builder: Runner = (factory, seen) =>
  controllerFor(factory, pods, { name: 'bench', concurrency: CONCURRENCY })
    .reconcile(async ({ object }) => {
      if (object !== undefined) seen();
    })
    .start();

const bare: Runner = (factory, seen) => {
  const informer = factory.informerFor(pods);
  const queue = new WorkQueue<string>();
  const add = (o: KubeObject) => queue.add(`${o.metadata!.namespace}/${o.metadata!.name}`);
  const reg = informer.addEventHandler({ onAdd: add, onUpdate: (_o, n) => add(n) }); // the bench deletes nothing
  let synced = false;
  reg.synced$.subscribe((v) => (synced ||= v));
  // The bare loop: CONCURRENCY workers taking keys, reconciling, forgetting and releasing them.
  const worker = async () => {
    while (!synced) await new Promise((r) => setImmediate(r));
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      if (informer.getStore().get(key) !== undefined) seen();
      queue.forget(key);
      queue.done(key);
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, () => worker());
  return {
    stop: async () => {
      reg.remove();
      await queue.shutdown();
      await Promise.all(workers);
    },
  };
};

/** Resolves once `count()` reaches `target`. */
async function reach(count: () => number, target: number): Promise<void> {
  while (count() < target) await new Promise((r) => setImmediate(r));
}

/** The figures of one run: reconciles per wall-clock second and per second of this process's CPU. */
type Rates = Record<'initial' | 'changes' | 'initialCpu' | 'changesCpu', number>;

/** This process's CPU time so far (user and system, all threads), in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Reconciles per second of the initial list and of N changes, by the wall clock and by this
 * process's CPU time (which other processes' load does not stretch).
 */
async function measure(run: Runner): Promise<Rates> {
  const changes = new Subject<WatchEvent<KubeObject>>();
  const factory = warmFactory(changes);
  factory.start();
  await factory.waitForCacheSync();
  (globalThis as { gc?: () => void }).gc?.(); // the list's and the last round's garbage: collected before, not during
  let n = 0;
  const [t0, c0] = [performance.now(), cpuMs()];
  const ctl = run(factory, () => n++);
  await reach(() => n, N);
  const [t1, c1] = [performance.now(), cpuMs()];
  for (let i = 0; i < N; i++) changes.next({ type: 'MODIFIED', object: pod(i, 2) });
  await reach(() => n, 2 * N);
  const [t2, c2] = [performance.now(), cpuMs()];
  await ctl.stop();
  factory.shutdown();
  const rate = (ms: number) => (N / ms) * 1000;
  return { initial: rate(t1 - t0), changes: rate(t2 - t1), initialCpu: rate(c1 - c0), changesCpu: rate(c2 - c1) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const results = { builder: [] as Rates[], bare: [] as Rates[] };
const only = process.env.ONLY;
const keepAlive = setInterval(() => undefined, 1000); // in-memory informers hold no handle of their own
for (let r = 0; r < ROUNDS; r++) {
  // Each goes first every other round: neither always runs on the other's leftovers.
  for (const kind of r % 2 === 0 ? (['bare', 'builder'] as const) : (['builder', 'bare'] as const))
    if (only === undefined || only === kind) results[kind].push(await measure(kind === 'bare' ? bare : builder));
}
clearInterval(keepAlive);
const row = (kind: keyof Rates) => {
  const b = median(results.builder.map((x) => x[kind]));
  const c = median(results.bare.map((x) => x[kind]));
  const paired = median(results.builder.map((x, i) => x[kind] / (results.bare[i]?.[kind] ?? NaN)));
  const unit = kind.endsWith('Cpu') ? '/cpu-s' : '/s    ';
  return `${kind.padEnd(10)} builder ${Math.round(b).toString().padStart(8)}${unit}   bare queue loop ${Math.round(c).toString().padStart(8)}${unit}   ratio ${paired.toFixed(2)}`;
};
console.log(`N=${N}, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds (ratio: median of the rounds' ratios)`);
if (only !== 'shutdown') for (const kind of ['initial', 'changes', 'initialCpu', 'changesCpu'] as const) console.log(row(kind));

/** Ms from a manager's `stop()` to its end, with 8 reconciles in flight, waiting on their signal or computing. */
async function shutdownMs(busy: 'waiting' | 'computing'): Promise<number> {
  const factory = warmFactory(NEVER);
  const mgr = createManager({ factory, logger: { error: console.error, warn: () => undefined, info: () => undefined } });
  let inFlight = 0;
  controllerFor(mgr, pods, { name: 'busy', concurrency: 8 }).reconcile(async ({ signal }) => {
    inFlight++;
    if (busy === 'waiting') return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    while (!signal.aborted) {
      const end = performance.now() + 1;
      while (performance.now() < end); // a millisecond of work, then a look at the signal
      await new Promise((r) => setImmediate(r));
    }
  });
  await mgr.start();
  await reach(() => inFlight, 8);
  const t0 = performance.now();
  await mgr.stop();
  return performance.now() - t0;
}

if (only === undefined || only === 'shutdown') {
  const keep = setInterval(() => undefined, 1000);
  for (const busy of ['waiting', 'computing'] as const) {
    const runs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) runs.push(await shutdownMs(busy));
    console.log(
      `shutdown, 8 reconciles ${busy.padEnd(9)} median ${median(runs).toFixed(1)} ms (${runs.map((x) => x.toFixed(1)).join(', ')})`,
    );
  }
  clearInterval(keep);
}
