/**
 * heapPerObject / heapPerObjectTransformed: bytes of heap retained per cached pod, after a full GC,
 * each measured in a fresh process (`heapChild.ts`) holding nothing else:
 *   - rxinformer: the factory's pod informer, synced and running;
 *   - rxinformerTransformed: the same with a transform dropping `metadata.managedFields`;
 *   - rxinformerMetadata: the factory's metadata-only pod informer (`metadataOnly(pods)`);
 *   - rxinformerMetadataTransformed: the same dropping `metadata.managedFields` (not measured by default);
 *   - clientNode: `makeInformer`'s cache (always untransformed; it has no transform);
 *   - limit: the same pages `JSON.parse`d and the items kept in one array.
 */
import { runChild } from './childRun.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** What `heapChild.ts` can measure. */
export type HeapContender =
  'rxinformer' | 'rxinformerTransformed' | 'rxinformerMetadata' | 'rxinformerMetadataTransformed' | 'clientNode' | 'limit';

const CONTENDERS: HeapContender[] = ['rxinformer', 'rxinformerTransformed', 'rxinformerMetadata', 'clientNode', 'limit'];

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
  options: RotatingOptions & { contenders?: readonly HeapContender[] } = {},
): Promise<Record<HeapContender, Outcome>> {
  const one = (contender: HeapContender) => async () => {
    const { bytesPerObject } = await runChild<{ bytesPerObject: number }>('heapChild.ts', [contender, String(pods)], {
      env: { RXINFORMER_BENCH_KUBECONFIG: kubeconfig },
      nodeFlags: ['--expose-gc', '--max-old-space-size=4096'],
    });
    return bytesPerObject;
  };
  return runRotating(Object.fromEntries((options.contenders ?? CONTENDERS).map((c) => [c, one(c)])), { ...options, warmup: 0 }) as Promise<
    Record<HeapContender, Outcome>
  >;
}
