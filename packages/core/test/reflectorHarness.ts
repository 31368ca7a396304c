/**
 * Runs the reflector on a `TestScheduler` against a scripted ListerWatcher, and reads what it
 * emitted: the shared harness of the reflector's tests.
 */
import type { Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reflector, type ReflectorRunOptions } from '../src/reflector/reflector.ts';
import type { KubeObject, ReflectorEvent, ReflectorStatus, WatchEvent } from '../src/types.ts';
import { fakeListerWatcher, testScheduler } from '@rxinformer/testing';

/** What one reflector emitted, each event with its virtual time. */
export type Run = { events: [number, ReflectorEvent][]; sub: Subscription };

/** Runs `fn` in `TestScheduler.run` with a fake ListerWatcher and `start`, which runs the reflector until `untilMs`. */
export function setup(
  fn: (h: {
    ts: TestScheduler;
    cold: TestScheduler['createColdObservable'];
    lw: ReturnType<typeof fakeListerWatcher>;
    start: (o?: ReflectorRunOptions<KubeObject>, untilMs?: number) => Run;
    flush: () => void;
  }) => void,
): void {
  const ts = testScheduler();
  ts.run(({ cold, flush }) => {
    const lw = fakeListerWatcher({ watchList: true }); // as an HTTP ListerWatcher: cases that script pages say PAGED
    // Runs the reflector until `untilMs` of virtual time (it never stops on its own). The stall
    // check is off unless a test turns it on: its lists would take scripted answers of others.
    const start = (o: ReflectorRunOptions<KubeObject> = {}, untilMs = 200_000): Run => {
      const events: [number, ReflectorEvent][] = [];
      const sub = reflector(lw, { scheduler: ts, random: () => 0, stallCheck: false, ...o }).subscribe((e) => events.push([ts.now(), e]));
      ts.schedule(() => sub.unsubscribe(), untilMs);
      return { events, sub };
    };
    fn({ ts, cold: cold as TestScheduler['createColdObservable'], lw, start, flush });
  });
}

/** The non-status events, as `[time, 'LIST@rv:a,b' | 'ADDED:name' | 'BOOKMARK@rv']`. */
export const data = (r: Run) =>
  r.events
    .filter(([, e]) => e.type !== 'STATUS')
    .map(([t, e]) => [
      t,
      e.type === 'LIST'
        ? `LIST@${e.resourceVersion}:${e.items.map((i) => i.metadata?.name).join(',')}`
        : e.type === 'BOOKMARK'
          ? `BOOKMARK@${e.resourceVersion}`
          : `${e.type}:${(e as { object: KubeObject }).object.metadata?.name}`,
    ]);

/** The statuses, as `[time, status]`. */
export const statuses = (r: Run) =>
  r.events.filter(([, e]) => e.type === 'STATUS').map(([t, e]) => [t, (e as { status: ReflectorStatus }).status] as const);

/** A watch event. */
export const ev = (type: WatchEvent['type'], o: KubeObject | object): WatchEvent => ({ type, object: o }) as WatchEvent;
