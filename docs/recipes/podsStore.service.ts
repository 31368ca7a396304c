/**
 * Recipe: an Angular service exposing an informer's store as signals. Type-checked against
 * @angular/core by `npm test` (tsc -b); not run (no Angular test bed here): `podRows.test.ts` runs
 * the same rows against the simulator.
 */
import { DestroyRef, Injectable, NgZone, inject, type Signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { createSharedInformer, fetchListerWatcher, type ReflectorStatus } from '@rxinformer/core';
import { podRows, podsResource, type PodRow } from './podRows.ts';

/**
 * The pods of one namespace, live, as signals. One list and one watch for the whole app however
 * many components read it (`providedIn: 'root'`); provide it in a component's `providers` instead
 * to watch only while that component lives.
 *
 * Caveat: the cache is frozen; copy a pod before editing it in a form.
 *
 * @example
 * // in a component (OnPush or zoneless: signals mark it for check)
 * readonly pods = inject(PodsStore);
 * // template: @for (row of pods.rows(); track row.key) { <tr><td>{{ row.name }}</td><td>{{ row.phase }}</td></tr> }
 */
@Injectable({ providedIn: 'root' })
export class PodsStore {
  // Behind the app's backend or `kubectl proxy`: same origin, its cookies or token do the auth.
  readonly #informer = createSharedInformer(fetchListerWatcher({ baseUrl: '/k8s', resource: podsResource, namespace: 'default' }));

  /** The pods as table rows, sorted; a new value only when a row changes. */
  readonly rows: Signal<readonly PodRow[]> = toSignal(podRows(this.#informer.store$), { initialValue: [] });
  /** False until the first complete list has arrived: show a spinner until then. */
  readonly synced: Signal<boolean> = toSignal(this.#informer.synced$, { initialValue: false });
  /** The watch's condition (phase, last error): show "reconnecting…" when it is backing off. */
  readonly status: Signal<ReflectorStatus | undefined> = toSignal(this.#informer.status$);

  constructor() {
    // With zone.js, start outside Angular's zone: watch chunks, backoff and idle timers then do not
    // trigger app-wide change detection; the signals still schedule it for the views that read
    // them. In a zoneless app, runOutsideAngular just runs the function.
    inject(NgZone).runOutsideAngular(() => this.#informer.start());
    // toSignal unsubscribes when this injector is destroyed; the watch must stop with it too.
    inject(DestroyRef).onDestroy(() => this.#informer.stop());
  }
}
