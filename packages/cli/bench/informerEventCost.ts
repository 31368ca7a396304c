/**
 * The shared informer's own CPU per watch event, in process: a 10k-pod cache, one handler, and
 * realistic pod updates decoded fresh from their lines (`updatedPodLines`), fed through an in-memory
 * watch in batches of 16 (handlers deliver on microtasks in between, as after a socket's chunk).
 * Rounds of "decode + informer" alternate with rounds of "decode only" over the same lines; the
 * difference of the medians is the informer's cost, its garbage collection included.
 *
 *   npm run bench:event-cost [-- --no-freeze]   # one JSON line
 *
 * To compare two trees (a change against main), run it in each worktree in turn, several times
 * each, and compare the medians: the machine's speed drifts, so runs must alternate.
 */
import { of, Subject } from 'rxjs';
import { createSharedInformer, type KubeObject, type WatchEvent } from '@rxinformer/core';
import { benchPod, cpuMs, updatedPodLines } from './core.bench.ts';
import { median } from './rounds.ts';

const PODS = 10_000;
const EVENTS = 20_000;
const ROUNDS = 7;
const BATCH = 16;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const freeze = !process.argv.includes('--no-freeze');
  const items = Array.from({ length: PODS }, (_, i) => benchPod(i, i + 1));
  const watch = new Subject<WatchEvent>();
  const informer = createSharedInformer(
    { list: () => of({ metadata: { resourceVersion: String(PODS) }, items }), watch: () => watch },
    { freeze },
  );
  let updates = 0;
  const handler = informer.addEventHandler({ onAdd: () => {}, onUpdate: () => void updates++ });
  informer.start();
  while (!handler.hasSynced()) await new Promise((r) => setTimeout(r, 1));
  items.length = 0; // only the informer keeps the objects now
  const lineOf = updatedPodLines();
  let sink = 0;
  // ns of CPU per event of one loop over round r's lines, applied to the informer or only decoded.
  const loop = async (r: number, apply: boolean): Promise<number> => {
    gc();
    const c0 = cpuMs();
    for (let j = 0; j < EVENTS; j += BATCH) {
      for (let k = j; k < Math.min(j + BATCH, EVENTS); k++) {
        const object = JSON.parse(lineOf((k * 7919) % PODS, r * EVENTS + k + 1, PODS + 1 + r * EVENTS + k)) as KubeObject;
        if (apply) watch.next({ type: 'MODIFIED', object });
        else sink += object.metadata!.name!.length;
      }
      await Promise.resolve(); // the handler's delivery runs here
    }
    await new Promise((r) => setImmediate(r));
    return ((cpuMs() - c0) * 1e6) / EVENTS;
  };
  const both: number[] = [];
  const decodeOnly: number[] = [];
  for (let r = 0; r < ROUNDS + 2; r++) {
    const d = await loop(r, false);
    const b = await loop(r, true);
    if (r < 2) continue; // two warm-up rounds
    decodeOnly.push(d);
    both.push(b);
  }
  if (updates !== (ROUNDS + 2) * EVENTS || informer.getStore().size !== PODS || sink === 0) throw new Error('events lost');
  informer.shutdown();
  const us = (ns: number) => Math.round(ns) / 1000;
  console.log(
    JSON.stringify({
      freeze,
      informerUsPerEvent: us(median(both) - median(decodeOnly)),
      both: both.map(us),
      decodeOnly: decodeOnly.map(us),
    }),
  );
}

await main();
