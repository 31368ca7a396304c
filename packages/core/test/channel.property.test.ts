import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { testScheduler } from '@rxinformer/testing';
import { channelListerWatcherSource } from '../src/channel/channelListerWatcher.ts';
import { inProcessConnections, type ChannelConnection } from '../src/channel/connection.ts';
import { createInformerFactory } from '../src/informer/informerFactory.ts';
import type { KubeObject } from '../src/types.ts';
import { advance, PODS, servedInformer } from './channelKit.ts';
import { applyModelStep, modelSteps, modelView } from './modelSteps.ts';

/** Also: `blind`, the server's informer misses the writes of the next 700 ms and relists; `cut`, the tab's connection drops. */
const step = modelSteps<'blind' | 'cut'>(['drop', 'break', 'expire', 'compact', 'blind', 'fail', 'bookmark', 'cut', 'wait'], 3);
const view = modelView;

describe('an informer over the channel', () => {
  it('should converge to the API state through any interleaving of changes, API faults, server relists, dropped connections and batches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(step, fc.integer({ min: 0, max: 2000 })), { maxLength: 50 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 2, max: 20 }),
        // Events sent at the end of each task, or gathered and coalesced by key for 16 or 500 ms.
        fc.constantFrom(0, 16, 500),
        (steps, pageSize, history, batchMs) => {
          const ts = testScheduler();
          const { api, informer, server } = servedInformer(ts, { historySize: history, batchMs }, { pageSize });
          informer.start();
          let current: ChannelConnection | undefined;
          const source = channelListerWatcherSource(
            () => {
              const [client, end] = inProcessConnections({ scheduler: ts });
              server.serve(end);
              return (current = client);
            },
            { scheduler: ts, random: () => 0.5 },
          );
          const factory = createInformerFactory(source, { scheduler: ts });
          // The tab's informer stays away longer than the server's after a failure: it resumes across the server's relists.
          const mirror = factory.informerFor(PODS, { reflector: { random: () => 0.5, pageSize, backoff: { initialMs: 10_000 } } });
          // The cache's changes, replayed: no add of a key held, no update or delete of one not held.
          const replay = new Map<string, KubeObject>();
          mirror.events$.subscribe((d) => {
            if (d.type === 'Added') expect(replay.has(d.key)).toBe(false);
            else expect(replay.has(d.key)).toBe(true);
            if (d.type === 'Deleted') replay.delete(d.key);
            else replay.set(d.key, d.object);
          });
          factory.start();
          let at = 0;
          for (const [s, after] of steps)
            ts.schedule(
              () => {
                if (applyModelStep(api, s)) return;
                if (s.kind === 'cut') return current?.close();
                // blind: the server's informer misses what is written in the next 700 ms, then relists (410): its differences.
                api.breakWatches();
                ts.schedule(() => api.compact(), 700);
              },
              (at += after),
            );
          // Quiesce: long enough for the longest backoffs, then look.
          advance(ts, at + 200_000);
          expect(view(mirror.getStore().list())).toEqual(view(api.objects.values()));
          expect(view(replay.values())).toEqual(view(api.objects.values()));
          factory.shutdown();
          informer.shutdown();
        },
      ),
      { numRuns: 400 },
    );
  });
});
