/**
 * heapPerObject / heapPerObjectTransformed: bytes of heap retained per cached pod, after a full GC,
 * each measured in a fresh process (`heapChild.ts`) holding nothing else:
 *   - rxinformer: the factory's pod informer, synced and running;
 *   - rxinformerTransformed: the same with a transform dropping `metadata.managedFields`;
 *   - rxinformerMetadata: the factory's metadata-only pod informer (`metadataOnly(pods)`);
 *   - rxinformerMetadataTransformed: the same dropping `metadata.managedFields` (not measured by default);
 *   - rxinformerProjected: the factory's informer of the pods preset's projection (`projected(pods, PRESETS.pods)`);
 *   - rxinformerTable: the factory's informer of the pods' Table rows (`tableRows(pods)`);
 *   - clientNode: `makeInformer`'s cache (always untransformed; it has no transform);
 *   - limit: the same pages `JSON.parse`d and the items kept in one array;
 *   - clientGo, clientGoProtobuf: client-go's informer in a process of its own (clientGo.ts), JSON or
 *     protobuf: `HeapAlloc` after `runtime.GC()` once synced, minus before its start, over the pods.
 * Both runtimes count live bytes after a full collection in a fresh process, minus that process's
 * own baseline taken the same way just before the informer starts.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { runChild } from './childRun.ts';
import { clientGoHeapPerObject, clientGoRun, type ClientGoContender } from './clientGo.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** What `heapChild.ts` can measure. */
export type HeapContender =
  | 'rxinformer'
  | 'rxinformerTransformed'
  | 'rxinformerMetadata'
  | 'rxinformerMetadataTransformed'
  | 'rxinformerProjected'
  | 'rxinformerTable'
  | 'clientNode'
  | 'limit'
  | ClientGoContender;

const CONTENDERS: HeapContender[] = [
  'rxinformer',
  'rxinformerTransformed',
  'rxinformerMetadata',
  'rxinformerProjected',
  'rxinformerTable',
  'clientNode',
  'limit',
];

/**
 * Measures the heap per cached pod of each contender, `rounds` fresh processes each, in rotating
 * order (no warm-up: every process starts cold by design).
 *
 * @example
 * const out = await measureHeapPerObject(sim.kubeconfig, 10_000, { rounds: 2 });
 * out.clientNode; // { median, samples } in bytes per pod, or { error }
 *
 * Caveat: the simulator must hold exactly `pods` pods while this runs.
 */
export function measureHeapPerObject(
  kubeconfig: string,
  pods: number,
  options: RotatingOptions & {
    contenders?: readonly HeapContender[];
    /** Told each Node run's memory outside V8's heap per pod (`process.memoryUsage().external`, after minus before). */
    onExternal?: (contender: HeapContender, bytesPerObject: number) => void;
  } = {},
): Promise<Record<HeapContender, Outcome>> {
  const one = (contender: HeapContender) => async () => {
    if (contender === 'clientGo' || contender === 'clientGoProtobuf') {
      const kc = new KubeConfig();
      kc.loadFromString(kubeconfig);
      return clientGoHeapPerObject(clientGoRun(kc, contender, 300_000), pods);
    }
    const { bytesPerObject, externalBytesPerObject } = await runChild<{ bytesPerObject: number; externalBytesPerObject: number }>(
      'heapChild.ts',
      [contender, String(pods)],
      {
        env: { RXINFORMER_BENCH_KUBECONFIG: kubeconfig },
        nodeFlags: ['--expose-gc', '--max-old-space-size=4096'],
      },
    );
    options.onExternal?.(contender, externalBytesPerObject);
    return bytesPerObject;
  };
  return runRotating(Object.fromEntries((options.contenders ?? CONTENDERS).map((c) => [c, one(c)])), { ...options, warmup: 0 }) as Promise<
    Record<HeapContender, Outcome>
  >;
}
