/**
 * Runs work only while an election leads: a controller (anything with `stop()`) or any Observable,
 * started when the term begins and stopped when it ends — at the renew deadline at the latest, so
 * before the Lease can expire for others.
 */
import { Observable, isObservable, type Subscription } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import type { LeaderElection } from './leaderElection.ts';

/** What `whileLeading` runs: an Observable (unsubscribed to stop), or a handle with `stop()`, such as a controller's `start()`. */
export type LeaderWork<T> = Observable<T> | StoppableWork;

/** Work with a `stop()`, such as the term a controller's `start()` returns. */
export interface StoppableWork {
  /** Stops the work; what it returns is awaited before the Lease is released or the next term's work starts. */
  stop(): PromiseLike<unknown> | void;
}

/**
 * Subscribes to `election` and calls `start` each time a term begins; stops what it returned when
 * the term ends. An Observable is unsubscribed at once; a handle's `stop()` is awaited, and no new
 * term's work starts before it settled. Emits the values of Observable work; an error of the work
 * ends the returned Observable; it completes (once the work stopped) when the election does. Unsubscribing stops the work, and only once it has stopped leaves
 * the election (so the Lease is released after the work ended, never before).
 *
 * Caveat: a reconcile in progress when a term ends is aborted (its `req.signal`) and waited for
 * (`@rxinformer/controller`'s term `stop()`): keep reconciles shorter than
 * `leaseDurationMs - renewDeadlineMs`, and pass the signal to what they wait on.
 *
 * @example
 * const run = whileLeading(election, () => controllerFor(factory, pods, { name: 'x' }).reconcile(fn).start()).subscribe();
 * // on shutdown: run.unsubscribe(); the controller stops, then the Lease is released
 */
export function whileLeading<T = never>(election: LeaderElection, start: () => LeaderWork<T>): Observable<T> {
  if (!isObservable(election) || !isObservable((election as Partial<LeaderElection>).isLeader$))
    throw new InvalidOptionsError('whileLeading needs a LeaderElection');
  if (typeof start !== 'function') throw new InvalidOptionsError('whileLeading: start must be a function');
  return new Observable<T>((subscriber) => {
    let stopWork: (() => PromiseLike<unknown> | void) | undefined;
    let stopping: Promise<void> | undefined;
    let leading = false;
    let closed = false;
    const begin = () => {
      if (closed || !leading || stopWork || stopping) return;
      try {
        const work = start();
        if (isObservable(work)) {
          const sub: Subscription = work.subscribe({ next: (v) => subscriber.next(v), error: (e: unknown) => subscriber.error(e) });
          stopWork = () => sub.unsubscribe();
        } else if (work && typeof work.stop === 'function') stopWork = () => work.stop();
        else throw new InvalidOptionsError('whileLeading: start must return an Observable or an object with stop()');
      } catch (e) {
        subscriber.error(e);
      }
    };
    const end = () => {
      const stopIt = stopWork;
      stopWork = undefined;
      if (!stopIt) return;
      let answer: PromiseLike<unknown> | void;
      try {
        answer = stopIt();
      } catch {
        answer = undefined;
      }
      if (answer && typeof answer.then === 'function') {
        stopping = Promise.resolve(answer).then(
          () => undefined,
          () => undefined,
        );
        void stopping.then(() => {
          stopping = undefined;
          begin();
        });
      }
    };
    const electionSub = election.isLeader$.subscribe({
      next: (isLeader) => {
        leading = isLeader;
        if (isLeader) begin();
        else end();
      },
      error: (e: unknown) => subscriber.error(e),
      complete: () => {
        leading = false;
        end();
        if (stopping) void stopping.then(() => subscriber.complete());
        else subscriber.complete();
      },
    });
    return () => {
      closed = true;
      end();
      if (stopping) void stopping.then(() => electionSub.unsubscribe());
      else electionSub.unsubscribe();
    };
  });
}
