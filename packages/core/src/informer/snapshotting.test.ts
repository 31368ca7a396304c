import { describe, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import { saveTimes } from './snapshotting.ts';

describe('saveTimes', () => {
  it('should ask for a save intervalMs after the first change since the last one, with the latest', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const running = hot('r----------------', { r: true });
      const changes = hot('--a-b------c-c-c');
      const expected = '   -------b--------c';
      expectObservable(saveTimes(changes, running, 5, ts)).toBe(expected);
    });
  });

  it('should ask at once when the informer stops, dropping the pending timer, and nothing while stopped', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const running = hot('f-r--f----r-------', { r: true, f: false });
      const changes = hot('--a-----x---y-----');
      const expected = '   -----s-----------y';
      expectObservable(saveTimes(changes, running, 5, ts)).toBe(expected, { s: undefined, y: 'y' });
    });
  });
});
