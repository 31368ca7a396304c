import { describe, it } from '@jest/globals';
import { ReplaySubject, of } from 'rxjs';
import { InvalidReconcileResultError } from './reconcileWorker.ts';
import { virtualController } from '../../test/virtualController.ts';
import { testScheduler } from '@rxinformer/testing';

describe('runController requeue: true', () => {
  it('should requeue after a growing rate-limited backoff without reporting a failure', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      let runs = 0;
      const { ctl, log, queue } = virtualController(ts, { work: () => of(++runs < 4 ? { requeue: true } : undefined) });
      const errors = new ReplaySubject<unknown>();
      ctl.errors$.subscribe(errors);
      queue.add('a');
      ts.schedule(() => void ctl.stop(), 100);
      // 5, 10, 20 ms: the backoff is kept (not forgotten) between requeues, as a failure's would be.
      expectObservable(log).toBe('a 4ms a 9ms a 19ms a');
      expectObservable(errors).toBe('100ms |'); // no failure, completed by stop
    });
  });

  it('should let requeueAfterMs win over requeue, and refuse a requeue that is not a boolean', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      let runs = 0;
      const results: unknown[] = [{ requeue: true, requeueAfterMs: 30 }, { requeue: 'yes' }, undefined];
      const { ctl, log, queue } = virtualController(ts, { work: () => of(results[runs++]) });
      const errors = new ReplaySubject<string>();
      ctl.errors$.subscribe((e) => errors.next(e.error instanceof InvalidReconcileResultError ? 'i' : 'x'));
      queue.add('a');
      ts.schedule(() => void ctl.stop(), 100);
      expectObservable(log).toBe('a 29ms a 4ms a');
      expectObservable(errors).toBe('30ms i');
    });
  });
});
