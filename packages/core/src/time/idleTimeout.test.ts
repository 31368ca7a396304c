import { describe, it } from '@jest/globals';
import { EMPTY, NEVER, asyncScheduler, throwError, timeout } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { idleMarks, idleTimeout } from './idleTimeout.ts';
import { testScheduler } from '@rxinformer/testing';

const run = (fn: Parameters<TestScheduler['run']>[0]): void => {
  testScheduler().run(fn);
};
const idle = new Error('idle');

describe('idleTimeout', () => {
  it('should error once nothing arrived for the time, counted from the subscription and then from each value', () =>
    run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a 3ms b 9ms c');
      expectObservable(source.pipe(idleTimeout(5, asyncScheduler, () => idle))).toBe('a 3ms b 4ms #', undefined, idle);
      expectSubscriptions(source.subscriptions).toBe('^ 3ms - 4ms !');
      expectObservable(NEVER.pipe(idleTimeout(5, asyncScheduler, () => idle))).toBe('5ms #', undefined, idle);
    }));

  it('should error at the moment rxjs timeout({ each }) does, on busy and sparse streams', () =>
    run(({ cold, expectObservable }) => {
      const source = cold('ab 2ms c 6ms d 3ms (ef) 9ms g');
      const ours = source.pipe(idleTimeout(8, asyncScheduler, () => idle));
      const theirs = source.pipe(timeout({ each: 8, with: () => throwError(() => idle) }));
      expectObservable(ours).toBe('ab 2ms c 6ms d 3ms (ef) 4ms #', undefined, idle);
      expectObservable(theirs).toBe('ab 2ms c 6ms d 3ms (ef) 4ms #', undefined, idle);
    }));

  it('should pass values, errors and completion through and stop its timer with them', () =>
    run(({ cold, expectObservable, expectSubscriptions }) => {
      const failing = cold('a-#');
      expectObservable(failing.pipe(idleTimeout(5, asyncScheduler, () => idle))).toBe('a-#');
      const done = cold('a-b|');
      expectObservable(done.pipe(idleTimeout(5, asyncScheduler, () => idle))).toBe('a-b|');
      expectObservable(EMPTY.pipe(idleTimeout(5, asyncScheduler, () => idle))).toBe('|');
      const long = cold('a 9ms b');
      expectObservable(long.pipe(idleTimeout(20, asyncScheduler, () => idle)), '^ 3ms !').toBe('a');
      expectSubscriptions(long.subscriptions).toBe('^ 3ms !');
    }));
});

describe('idleMarks', () => {
  it('should mark each period of silence, counted from the subscription, then from each value or mark', () =>
    run(({ cold, expectObservable }) => {
      const source = cold('a 3ms b 11ms c 2ms |');
      expectObservable(source.pipe(idleMarks(5, asyncScheduler, () => 'm'))).toBe('a 3ms b 4ms m 4ms m 1ms c 2ms |');
      expectObservable(NEVER.pipe(idleMarks(4, asyncScheduler, () => 'm')), '^ 13ms !').toBe('4ms m 3ms m 3ms m');
    }));

  it('should pass errors through and stop marking once unsubscribed', () =>
    run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(cold('2ms #').pipe(idleMarks(5, asyncScheduler, () => 'm'))).toBe('2ms #');
      const long = cold('-');
      expectObservable(long.pipe(idleMarks(5, asyncScheduler, () => 'm')), '^ 7ms !').toBe('5ms m');
      expectSubscriptions(long.subscriptions).toBe('^ 7ms !');
    }));
});
