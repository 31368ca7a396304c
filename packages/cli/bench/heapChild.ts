/**
 * One heap measurement in a fresh process (run with --expose-gc by `heapPerObject.ts`): loads
 * every module, takes the heap after a full GC, syncs one contender against the server, takes
 * the heap again with the contender still running, and prints `{"bytesPerObject": …, "count": …}`
 * (V8's heap in use) with `externalBytesPerObject` (memory outside it: Buffers, ArrayBuffers).
 *
 *   node --expose-gc heapChild.ts <rxinformer|rxinformerTransformed|rxinformerMetadata|rxinformerProjected|rxinformerTable|clientNode|limit> <expected pods>
 *   (the kubeconfig YAML comes in the RXINFORMER_BENCH_KUBECONFIG environment variable)
 */
import { setImmediate as tick } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, namespaces } from '@rxinformer/client-node';
import { clientNodeSynced, dropManagedFields, limitSynced, rxinformerSynced, type Synced } from './clients.ts';
import type { ClientGoContender } from './clientGo.ts';
import type { HeapContender } from './heapPerObject.ts';

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap in use (and memory outside it) after full collections, with turns of the event loop between them (finalizers, weak refs). */
async function settledHeap(): Promise<{ heapUsed: number; external: number }> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await tick();
  }
  const { heapUsed, external } = process.memoryUsage();
  return { heapUsed, external };
}

/** Runs both libraries' code paths once on a small resource, so their lazy set-up is in the baseline. */
async function warmUp(kc: KubeConfig): Promise<void> {
  const factory = createKubeInformerFactory(kc);
  factory.informerFor(namespaces);
  factory.start();
  await factory.waitForCacheSync();
  await factory.close();
  await kc.makeApiClient(CoreV1Api).listNamespace();
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with --expose-gc');
  const [contender, expectedText] = process.argv.slice(2) as [HeapContender, string];
  const expected = Number(expectedText);
  const kc = new KubeConfig();
  kc.loadFromString(process.env.RXINFORMER_BENCH_KUBECONFIG ?? '');
  const syncs: Record<Exclude<HeapContender, ClientGoContender>, () => Promise<Synced>> = {
    rxinformer: () => rxinformerSynced(kc),
    rxinformerTransformed: () => rxinformerSynced(kc, { transform: dropManagedFields }),
    rxinformerMetadata: () => rxinformerSynced(kc, { metadataOnly: true }),
    rxinformerMetadataTransformed: () => rxinformerSynced(kc, { metadataOnly: true, transform: dropManagedFields }),
    rxinformerProjected: () => rxinformerSynced(kc, { projected: true }),
    rxinformerTable: () => rxinformerSynced(kc, { tableRows: true }),
    clientNode: () => clientNodeSynced(kc, expected),
    limit: () => limitSynced(kc),
  };
  if (!(contender in syncs)) throw new Error(`unknown contender ${contender}`);
  await warmUp(kc);
  const before = await settledHeap();
  const synced = await syncs[contender as keyof typeof syncs]();
  const after = await settledHeap();
  if (synced.count !== expected) throw new Error(`${contender} holds ${synced.count} of ${expected} pods`);
  const perObject = (key: 'heapUsed' | 'external') => (after[key] - before[key]) / synced.count;
  process.stdout.write(
    `${JSON.stringify({ bytesPerObject: perObject('heapUsed'), externalBytesPerObject: perObject('external'), count: synced.count })}\n`,
  );
  await synced.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
