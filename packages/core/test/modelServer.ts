/**
 * An in-memory model of the API server's list/watch semantics for property tests: one global
 * revision counter, paged lists at a snapshot, streaming lists, a watch history that compaction cuts, ERROR 410 for
 * compacted resource versions, and faults (dropped or failing watches, HTTP errors). Synchronous:
 * it runs in a TestScheduler's virtual time.
 */
import { Observable, type Subscriber } from 'rxjs';
import { KubeApiError } from '../src/errors.ts';
import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type ListPage, type ListerWatcher, type WatchEvent } from '../src/types.ts';

type Change = { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

export class ModelServer implements ListerWatcher<KubeObject> {
  rv = 1;
  readonly objects = new Map<string, KubeObject>();
  #history: Change[] = [];
  #compacted = 0;
  #uid = 0;
  #watchers = new Set<{ subscriber: Subscriber<WatchEvent<KubeObject>>; rv: number }>();
  #snapshots = new Map<string, { rv: number; items: KubeObject[] }>();
  #failNext = 0;

  create(name: string): void {
    if (this.objects.has(name)) return;
    this.#write('ADDED', { metadata: { namespace: 'ns', name, uid: `uid-${++this.#uid}`, resourceVersion: '' } });
  }
  update(name: string): void {
    const o = this.objects.get(name);
    if (o) this.#write('MODIFIED', { metadata: { ...o.metadata, resourceVersion: '' }, spec: { n: this.rv } } as KubeObject);
  }
  delete(name: string): void {
    const o = this.objects.get(name);
    if (o) this.#write('DELETED', { metadata: { ...o.metadata, resourceVersion: '' } });
  }
  /** Ends every open watch cleanly (as a server timeout or a dropped connection would). */
  dropWatches(): void {
    for (const w of [...this.#watchers]) w.subscriber.complete();
  }
  /** Fails every open watch with a network error. */
  breakWatches(): void {
    for (const w of [...this.#watchers]) w.subscriber.error(new Error('connection reset'));
  }
  /** Sends ERROR 410 on every open watch, then closes it. */
  expireWatches(): void {
    for (const w of [...this.#watchers]) {
      w.subscriber.next({
        type: 'ERROR',
        object: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' },
      });
      w.subscriber.complete();
    }
  }
  /** The revision moves on with no change of these objects (another resource's write): every open watch gets a BOOKMARK at it. */
  bookmark(): void {
    this.rv++;
    for (const w of [...this.#watchers])
      w.subscriber.next({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(this.rv) } } });
  }
  /** Forgets all history: older resource versions and continue tokens now answer 410. */
  compact(): void {
    this.#compacted = this.rv;
    this.#history = [];
  }
  /** The next `n` requests fail with HTTP 500. */
  failNext(n: number): void {
    this.#failNext = n;
  }

  list(options: { limit?: number; continue?: string }): Observable<ListPage<KubeObject>> {
    return new Observable((s) => {
      if (this.#failNext > 0) {
        this.#failNext--;
        s.error(new KubeApiError(500));
        return;
      }
      let snap = options.continue
        ? this.#snapshots.get(options.continue.split(':')[0])
        : { rv: this.rv, items: [...this.objects.values()] };
      const offset = options.continue ? Number(options.continue.split(':')[1]) : 0;
      if (!snap || snap.rv < this.#compacted) {
        s.error(new KubeApiError(410, { reason: 'Expired', message: 'continue token expired' }));
        return;
      }
      const limit = options.limit ?? snap.items.length;
      const id = options.continue?.split(':')[0] ?? String(this.#snapshots.size + 1);
      this.#snapshots.set(id, snap);
      const end = offset + limit;
      s.next({
        metadata: { resourceVersion: String(snap.rv), ...(end < snap.items.length ? { continue: `${id}:${end}` } : {}) },
        items: snap.items.slice(offset, end),
      });
      s.complete();
      snap = undefined;
    });
  }

  watch(options: { resourceVersion?: string; sendInitialEvents?: boolean }): Observable<WatchEvent<KubeObject>> {
    return new Observable((subscriber) => {
      if (this.#failNext > 0) {
        this.#failNext--;
        subscriber.error(new KubeApiError(503));
        return;
      }
      if (options.sendInitialEvents) return this.#streamList(subscriber);
      const from = Number(options.resourceVersion);
      if (from < this.#compacted) {
        subscriber.next({
          type: 'ERROR',
          object: { kind: 'Status', code: 410, reason: 'Expired', message: `too old resource version: ${from}` },
        });
        subscriber.complete();
        return;
      }
      for (const c of this.#history) if (c.rv > from) subscriber.next({ type: c.type, object: c.object });
      const w = { subscriber, rv: from };
      this.#watchers.add(w);
      return () => {
        this.#watchers.delete(w);
      };
    });
  }

  /** A streaming list (the most recent state): every object as ADDED, the end bookmark, then the changes. */
  #streamList(subscriber: Subscriber<WatchEvent<KubeObject>>): () => void {
    for (const object of this.objects.values()) subscriber.next({ type: 'ADDED', object });
    const end = { metadata: { resourceVersion: String(this.rv), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } };
    subscriber.next({ type: 'BOOKMARK', object: end });
    const w = { subscriber, rv: this.rv };
    this.#watchers.add(w);
    return () => {
      this.#watchers.delete(w);
    };
  }

  #write(type: Change['type'], object: KubeObject): void {
    this.rv++;
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(this.rv) } };
    const key = stored.metadata.name!;
    if (type === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, stored);
    this.#history.push({ rv: this.rv, type, object: stored });
    for (const w of [...this.#watchers]) w.subscriber.next({ type, object: stored });
  }
}
