/**
 * One reconcile's id and abort signal, each made on first read: most reconciles read neither, and
 * an `AbortController` (with its `EventTarget`) and an id string per reconcile are a good part of a
 * quick reconcile's cost.
 */

let reconciles = 0;
/** A prefix unique to this process, so that reconcile ids of two replicas differ. */
const ID_PREFIX = Math.floor(Math.random() * 2 ** 32).toString(36);

/** A reconcile's id and signal. Aborted before its signal is read, the signal is made aborted, with the first reason. */
export class ReconcileRun {
  readonly #seq = reconciles++;
  #id: string | undefined;
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;

  /** The reconcile's id, unique in the process and across replicas (the same at each read). */
  get id(): string {
    return (this.#id ??= `${ID_PREFIX}-${this.#seq.toString(36)}`);
  }

  /** The signal (the same one at each read). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the signal with `reason`, made or not yet; the first reason stays. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
