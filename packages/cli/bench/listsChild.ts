/**
 * One informer of `apiServerLists.ts` in a process of its own, as one controller of ten: the
 * factory's pod informer (all namespaces) with paged or streaming lists, synced, then gone. Prints
 * `{"objects": …, "syncMs": …}` (from the factory's start to its sync).
 *
 *   node listsChild.ts <paged|streaming> <expected pods>
 *   (the kubeconfig YAML comes in the RXINFORMER_BENCH_KUBECONFIG environment variable)
 */
import { KubeConfig } from '@kubernetes/client-node';
import { rxinformerSynced } from './clients.ts';

async function main(): Promise<void> {
  const [mode, expectedText] = process.argv.slice(2);
  if (mode !== 'paged' && mode !== 'streaming') throw new Error(`mode must be paged or streaming, not ${mode}`);
  const kc = new KubeConfig();
  kc.loadFromString(process.env.RXINFORMER_BENCH_KUBECONFIG ?? '');
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
