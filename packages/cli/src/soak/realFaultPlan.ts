/**
 * The soak's faults on a real kube-apiserver and etcd (`@rxinformer/envtest`): what a network and a
 * real control plane do to a client, placed in time from a seed (`faultSchedule.ts`). Through the
 * fault proxy the clients connect through: watches cut (FIN), reset (RST) and stalled, latency,
 * 500, 503 and 429 (with Retry-After), 504 on a watch, 410 on a watch (what the server answers a
 * resourceVersion older than its watch cache); on the servers themselves: etcd compacted, alone
 * and while a relist's pages are in flight, and kube-apiserver killed with SIGKILL and started
 * again over the same etcd.
 */
import type { FaultProxy, InjectedFailure, TestEnvironment } from '@rxinformer/envtest';
import { scheduleFaults, type FaultAction, type ScheduleOptions } from './faultSchedule.ts';

/** Every kind of fault a soak run injects into a real server. */
export const REAL_FAULT_KINDS = [
  'cutWatches',
  'resetWatches',
  'stallWatches',
  'latency',
  'fail500',
  'fail503',
  'fail429',
  'failWatch504',
  'watchExpired410',
  'compact',
  'compactDuringList',
  'killApiServer',
] as const;

/** One kind of a real server's faults. */
export type RealFaultKind = (typeof REAL_FAULT_KINDS)[number];

/** What the faults act on: the environment (etcd, kube-apiserver) and the proxy in front of it. */
export interface RealFaultTarget {
  readonly env: Pick<TestEnvironment, 'etcd' | 'restartApiServer'>;
  readonly proxy: FaultProxy;
}

/** One step of a real server's schedule. */
export type RealFaultAction = FaultAction<RealFaultTarget, RealFaultKind>;

/** Slots per kind: faults that last get more (a restart takes seconds on busy cores). */
const UNITS: Partial<Record<RealFaultKind, number>> = { latency: 3, compactDuringList: 3, killApiServer: 4 };

/** The steps of one fault that starts at `at` and may last up to `lastMs`. */
function stepsOf(kind: RealFaultKind, at: number, lastMs: number): RealFaultAction[] {
  const one = (step: string, run: RealFaultAction['run'], offset = 0): RealFaultAction => ({ atMs: at + offset, fault: kind, step, run });
  // Failures wait for requests, and an open watch makes none: the watches are cut so that the
  // reconnects meet them. What no request met by the slot's end is dropped and counted unused.
  let injected = 0;
  let failedBefore = 0;
  const failing = (step: string, count: number, failure: InjectedFailure): RealFaultAction[] => [
    one(`${step}, cut watches`, ({ proxy }) => {
      failedBefore = proxy.counts.failed;
      injected = count;
      proxy.failNext(count, failure);
      return proxy.cut();
    }),
    endOfSlot(),
  ];
  const endOfSlot = (): RealFaultAction => ({
    ...one(
      'end of slot: drop what waits unused',
      ({ proxy }) => {
        const unused = Math.max(0, injected - (proxy.counts.failed - failedBefore));
        proxy.clear();
        return unused;
      },
      lastMs,
    ),
    endsSlot: true,
  });
  switch (kind) {
    case 'cutWatches':
      return [one('cut every watch', ({ proxy }) => proxy.cut())];
    case 'resetWatches':
      return [one('reset every watch (RST)', ({ proxy }) => proxy.reset())];
    case 'stallWatches':
      return [one('stall every watch', ({ proxy }) => proxy.stall())];
    case 'latency':
      return [
        one('latency 150 ms on', ({ proxy }) => proxy.setLatency(150)),
        one('latency off', ({ proxy }) => proxy.setLatency(0), lastMs),
      ];
    case 'fail500':
      return failing('next 2 requests 500', 2, { code: 500 });
    case 'fail503':
      return failing('next request 503 + Retry-After 1', 1, { code: 503, retryAfterSeconds: 1 });
    case 'fail429':
      return failing('next request 429 + Retry-After 1', 1, { code: 429, retryAfterSeconds: 1 });
    case 'failWatch504':
      return failing('next watch 504', 1, { code: 504, on: 'watch' });
    case 'watchExpired410':
      return failing('next watch 410', 1, { code: 410, on: 'watch' });
    case 'compact':
      return [one('compact etcd', async ({ env }) => void (await env.etcd.compact()))];
    case 'compactDuringList': {
      // Slow responses, then a 410 on the next watch forces a relist; compacting etcd about every 200 ms
      // while its pages are in flight may expire its continue token (it must start again).
      const [start, end] = failing('latency 100 ms on, next watch 410', 1, { code: 410, on: 'watch' });
      const compactions = Math.max(1, Math.floor(lastMs / 200)); // about every 200 ms, inside the slot
      return [
        { ...start, run: (t) => (t.proxy.setLatency(100), start.run(t)) },
        ...Array.from({ length: compactions }, (_, i) =>
          one(
            'compact etcd during the relist',
            async ({ env }) => void (await env.etcd.compact()),
            Math.round(((i + 1) * lastMs) / (compactions + 1)),
          ),
        ),
        end, // clears the latency with what waits
      ];
    }
    case 'killApiServer':
      return [one('kill kube-apiserver (SIGKILL), start it again', async ({ env }) => env.restartApiServer({ kill: true }))];
  }
}

/**
 * Plans the faults of one run against a real server: one of each kind plus `extra` more, in a
 * seeded order, each inside its own slot of the chaos phase. The same options give the same plan.
 *
 * @example
 * const plan = planRealFaults({ seed: 7, durationMs: 30_000 });
 * runFaultPlan({ env, proxy }, plan).subscribe((a) => console.log(a.atMs, a.action.step));
 */
export function planRealFaults(options: ScheduleOptions): RealFaultAction[] {
  return scheduleFaults(REAL_FAULT_KINDS, (kind) => UNITS[kind] ?? 1, stepsOf, options);
}
