/**
 * `runController` in virtual time for tests: a `TestScheduler` that compares with jest, and a
 * controller on it whose reconciles are logged (as marbles) before they run.
 */
import { ReplaySubject, of, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { runController, type ControllerOptions } from '../src/workqueue/runController.ts';
import { WorkQueue } from '../src/workqueue/workqueue.ts';

/**
 * Runs a controller in virtual time; `log` records the key of every reconcile as it starts. `work`
 * is what the reconcile does (default: takes 10 ms).
 */
export function virtualController(
  ts: TestScheduler,
  options: Partial<ControllerOptions<string>> & { work?: (key: string) => ReturnType<ControllerOptions<string>['reconcile']> },
) {
  const log = new ReplaySubject<string>();
  const queue = options.queue ?? new WorkQueue<string>({ scheduler: ts });
  const { work = () => timer(10), ...rest } = options;
  const ctl = runController({
    synced: of(true),
    scheduler: ts,
    queue,
    ...rest,
    reconcile: (key) => {
      log.next(key);
      return work(key);
    },
  });
  return { ctl, log, queue };
}
