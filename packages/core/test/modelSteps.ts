/**
 * Random scripts for the property tests over the `ModelServer`: writes to five names and the
 * server's faults, as fast-check arbitraries, applied by one function; and the view both sides of a
 * convergence check are compared in.
 */
import fc from 'fast-check';
import type { KubeObject } from '../src/types.ts';
import type { ModelServer } from './modelServer.ts';

/** The model server's faults (`wait` does nothing). */
export type ModelFault = 'drop' | 'break' | 'expire' | 'compact' | 'fail' | 'bookmark' | 'wait';

/** A write to one name, or a fault of the model server or of what a test adds (`E`). */
export type ModelStep<E extends string = never> =
  { kind: 'create' | 'update' | 'delete' | 'recreate'; name: string } | { kind: ModelFault | E };

/** Steps: writes six times as often as the `faults` (and `extra` kinds) together, times `faultWeight` / 2. */
export function modelSteps<E extends string = never>(faults: readonly (ModelFault | E)[], faultWeight = 2): fc.Arbitrary<ModelStep<E>> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constantFrom('create' as const, 'update' as const, 'delete' as const, 'recreate' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      }),
    },
    { weight: faultWeight, arbitrary: fc.record({ kind: fc.constantFrom(...faults) }) },
  );
}

/** Applies `step` to `server`; false for a kind it does not know (a test's own). */
export function applyModelStep(server: ModelServer, step: ModelStep<string>): boolean {
  switch (step.kind) {
    case 'create':
    case 'update':
    case 'delete':
      server[step.kind]((step as { name: string }).name);
      return true;
    case 'recreate':
      server.delete((step as { name: string }).name);
      server.create((step as { name: string }).name);
      return true;
    case 'drop':
      server.dropWatches();
      return true;
    case 'break':
      server.breakWatches();
      return true;
    case 'expire':
      server.expireWatches();
      return true;
    case 'compact':
      server.compact();
      return true;
    case 'fail':
      server.failNext(2);
      return true;
    case 'bookmark':
      server.bookmark();
      return true;
    case 'wait':
      return true;
    default:
      return false;
  }
}

/** Objects as `ns/name → uid@resourceVersion`, to compare a cache with the server. */
export const modelView = (entries: Iterable<KubeObject>): Map<string, string> =>
  new Map([...entries].map((o) => [`ns/${o.metadata?.name}`, `${o.metadata?.uid}@${o.metadata?.resourceVersion}`]));
