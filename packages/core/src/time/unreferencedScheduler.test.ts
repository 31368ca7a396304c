import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, timer, toArray, interval, take } from 'rxjs';
import { unreferencedScheduler } from './unreferencedScheduler.ts';

describe('unreferencedScheduler', () => {
  it('should run work after its delay, with its state, and again when the work reschedules itself', async () => {
    const seen: number[] = [];
    await new Promise<void>((done) => {
      unreferencedScheduler.schedule<number>(
        function (n = 0) {
          seen.push(n);
          if (n < 3) this.schedule(n + 1, 1);
          else done();
        },
        1,
        0,
      );
    });
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(await firstValueFrom(interval(1, unreferencedScheduler).pipe(take(3), toArray()))).toEqual([0, 1, 2]);
    expect(await firstValueFrom(timer(2, unreferencedScheduler))).toBe(0);
  });

  it('should not run work whose subscription was cancelled, and be closed once its work ran', async () => {
    let ran = false;
    unreferencedScheduler.schedule(() => (ran = true), 5).unsubscribe();
    const once = unreferencedScheduler.schedule(() => {}, 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(false);
    expect(once.closed).toBe(true);
  });

  it('should not keep the process alive: its timers are not among the active resources', () => {
    const node = (globalThis as unknown as { process: { getActiveResourcesInfo(): string[] } }).process;
    const timers = () => node.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const held = unreferencedScheduler.schedule(() => {}, 60_000);
    expect(timers()).toBe(before);
    held.unsubscribe();
    const referenced = setTimeout(() => {}, 60_000);
    expect(timers()).toBe(before + 1); // the check can see a timer that holds the process
    clearTimeout(referenced);
  });
});
