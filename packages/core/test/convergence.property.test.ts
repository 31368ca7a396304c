import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { scan } from 'rxjs';
import { applyEvent, initialDeltaState, initialDeltaStep } from '../src/store/deltaStore.ts';
import { createPrepare } from '../src/store/prepare.ts';
import { reflector } from '../src/reflector/reflector.ts';
import type { KubeObject } from '../src/types.ts';
import { ModelServer } from './modelServer.ts';
import { applyModelStep, modelSteps, modelView } from './modelSteps.ts';
import { testScheduler } from '@rxinformer/testing';

const step = modelSteps(['drop', 'break', 'expire', 'compact', 'fail', 'wait']);
const view = modelView;

describe('reflector + delta store', () => {
  it('should converge to the server state through any interleaving of changes and faults, listing in pages or streaming', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), (steps, pageSize, useStreamingList) => {
        const ts = testScheduler();
        ts.run(({ flush }) => {
          const server = new ModelServer();
          let state = initialDeltaState<KubeObject>();
          const replay = new Map<string, KubeObject>();
          const sub = reflector(server, { scheduler: ts, random: () => 0.5, pageSize, useStreamingList, prepare: createPrepare() })
            .pipe(scan((s, e) => applyEvent(s.state, e), initialDeltaStep<KubeObject>()))
            .subscribe((s) => {
              state = s.state;
              for (const d of s.deltas) {
                if (d.type === 'Deleted') {
                  expect(replay.get(d.key)?.metadata?.uid).toBe(d.deleted.lastKnown?.metadata?.uid);
                  replay.delete(d.key);
                } else if (d.type === 'Added') {
                  expect(replay.has(d.key)).toBe(false);
                  replay.set(d.key, d.object);
                } else {
                  expect(replay.get(d.key)?.metadata?.uid).toBe(d.object.metadata?.uid);
                  replay.set(d.key, d.object);
                }
              }
            });
          steps.forEach((s, i) =>
            ts.schedule(() => {
              applyModelStep(server, s);
            }, i * 500),
          );
          // Quiesce: long enough for the longest backoff, then stop.
          ts.schedule(() => sub.unsubscribe(), steps.length * 500 + 120_000);
          flush();
          expect(view(state.store.list())).toEqual(view(server.objects.values()));
          expect(view(replay.values())).toEqual(view(server.objects.values()));
        });
      }),
      { numRuns: 200 },
    );
  });
});
