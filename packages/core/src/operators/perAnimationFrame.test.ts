import { afterEach, describe, expect, it } from '@jest/globals';
import { animationFrameScheduler } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { frameScheduler, perAnimationFrame } from './perAnimationFrame.ts';
import { testScheduler } from '@rxinformer/testing';

type Global = { requestAnimationFrame?: unknown };
const global = globalThis as Global;

afterEach(() => {
  delete global.requestAnimationFrame;
});

describe('perAnimationFrame', () => {
  it('should emit the latest value of each frame, once, and nothing in a frame without values', () => {
    testScheduler().run(({ animate, hot, expectObservable }) => {
      animate('     ---x---x---x---x');
      const source = hot('abc 3ms d 5ms e 4ms |');
      // Frames at 3, 7, 11 and 15 ms: a, b, c (0 to 2 ms) give c at 3; d (6) waits for 7; no
      // value before 11; e (12) waits for 15.
      expectObservable(source.pipe(perAnimationFrame(animationFrameScheduler))).toBe('---c 3ms d 7ms e 1ms |');
    });
  });

  it('should deliver the last value before completing, and pass an error through', () => {
    testScheduler().run(({ animate, cold, expectObservable }) => {
      animate('     -----x');
      expectObservable(cold('a|').pipe(perAnimationFrame(animationFrameScheduler))).toBe('-----(a|)');
      expectObservable(cold('-#').pipe(perAnimationFrame(animationFrameScheduler))).toBe('-#');
    });
  });

  it('should wait for a macrotask where there is no requestAnimationFrame (Node, a server render)', () => {
    expect(typeof global.requestAnimationFrame).toBe('undefined');
    testScheduler().run(({ hot, expectObservable }) => {
      // asyncScheduler with no delay: the values of one instant are coalesced into the last one.
      expectObservable(hot('(abc) 1ms d 1ms (ef) |').pipe(perAnimationFrame())).toBe('c 5ms d 1ms f 3ms |');
    });
  });

  it('should wait for animation frames where requestAnimationFrame exists, decided at subscription', () => {
    global.requestAnimationFrame = () => 0; // only looked at; run mode's animate drives the frames
    expect(frameScheduler()).toBe(animationFrameScheduler);
    testScheduler().run(({ animate, hot, expectObservable }) => {
      animate('     ----x----x');
      expectObservable(hot('(abc)-d|').pipe(perAnimationFrame())).toBe('----c----(d|)');
    });
  });

  it('should refuse a scheduler that is not one at the call', () => {
    expect(() => perAnimationFrame({} as never)).toThrow(InvalidOptionsError);
  });
});
