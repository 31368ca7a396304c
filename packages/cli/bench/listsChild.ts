/**
 * One informer of `apiServerLists.ts` in a process of its own, as one controller of ten: a child
 * server (`startChildServer`) that loads everything, prints `{"ready": true}`, then on its one
 * request line syncs the factory's pod informer (all namespaces) with paged or streaming lists,
 * answers `{"objects": …, "syncMs": …}` (from the factory's start to its sync) and ends. Loading
 * first keeps ten Node processes' start-up out of the window kube-apiserver is measured in.
 *
 *   node listsChild.ts <paged|streaming> <expected pods>
 *   (the kubeconfig YAML comes in the RXINFORMER_BENCH_KUBECONFIG environment variable)
 */
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { rxinformerSynced } from './clients.ts';

async function main(): Promise<void> {
  const [mode, expectedText] = process.argv.slice(2);
  if (mode !== 'paged' && mode !== 'streaming') throw new Error(`mode must be paged or streaming, not ${mode}`);
  const kc = new KubeConfig();
  kc.loadFromString(process.env.RXINFORMER_BENCH_KUBECONFIG ?? '');
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  if ((await lines.next()).done) return; // closed before the go: nothing to do
  const t0 = performance.now();
  const synced = await rxinformerSynced(kc, { useStreamingList: mode === 'streaming' });
  const syncMs = synced.syncedAt - t0;
  await synced.close();
  if (synced.count !== Number(expectedText)) throw new Error(`synced ${synced.count} of ${expectedText} pods`);
  process.stdout.write(`${JSON.stringify({ objects: synced.count, syncMs })}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
