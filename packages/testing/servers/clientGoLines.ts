/**
 * The JSON lines the client-go peer (`packages/testing/clientgo`) writes to stdout, one object a
 * line, each with an `event`. See that folder's README for when each is written.
 */

/** An object's identity as the peer reports it. */
export interface PeerObject {
  /** client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` for a cluster-scoped object. */
  readonly key: string;
  readonly uid: string;
  /** `metadata.resourceVersion`. */
  readonly rv: string;
}

/** The first line: what the peer runs. */
export interface StartLine {
  readonly event: 'start';
  /** client-go's WatchListClient gate as client-go reads it (after `--watch-list`). */
  readonly watchList: boolean;
  /** The client-go module version built in, e.g. `v0.36.3`. */
  readonly clientGo: string;
  /** The content type the informer asks for: `application/json` or `application/vnd.kubernetes.protobuf`. */
  readonly contentType: string;
  /** The typed informer factory's informer, or the dynamic one's. */
  readonly informer: 'typed' | 'dynamic';
  /** `group/version/resource` (`version/resource` for the core group). */
  readonly resource: string;
}

/** A call of the handler's `OnAdd`. */
export interface AddLine extends PeerObject {
  readonly event: 'add';
  /** client-go's `isInInitialList`: the add comes from the initial list (or watch-list), not a later watch event. */
  readonly initial: boolean;
}

/** A call of the handler's `OnUpdate` (a resync's too: then `rv` equals `oldRv`). */
export interface UpdateLine extends PeerObject {
  readonly event: 'update';
  readonly oldRv: string;
  readonly oldUid: string;
}

/** A call of the handler's `OnDelete`. */
export interface DeleteLine extends PeerObject {
  readonly event: 'delete';
  /** The handler got a `DeletedFinalStateUnknown`: a relist no longer had the object; its last known state. */
  readonly finalStateUnknown: boolean;
}

/** The handler's registration has synced: every initial add has been delivered. */
export interface SyncedLine {
  readonly event: 'synced';
}

/** The last line of a watch run: the informer's store, sorted by key. */
export interface StoreLine {
  readonly event: 'store';
  readonly items: readonly PeerObject[];
}

/** A call of the informer's watch error handler (the reflector's ListAndWatch failed; it will retry). */
export interface WatchErrorLine {
  readonly event: 'watchError';
  readonly message: string;
}

/** The peer could not run (bad kubeconfig, unknown resource...): its last line; it exits 1. */
export interface FatalLine {
  readonly event: 'fatal';
  readonly message: string;
}

/** One HTTP request, once its response headers came (with `--log-requests`). */
export interface RequestLine {
  readonly event: 'request';
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly status: number;
  /** The response's Content-Type. */
  readonly contentType: string;
}

/** A bench's measurement, its last line. */
export interface ResultLine {
  readonly event: 'result';
  readonly mode: 'sync' | 'heap' | 'watch';
  /** Objects in the store once synced. */
  readonly objects: number;
  /** From the informer's start to its handler's sync (every initial add delivered), in ms. */
  readonly syncMs: number;
  /** From the informer's start to its own sync (the store filled), in ms. */
  readonly storeSyncMs: number;
  /** heap: `HeapAlloc` after GC before the informer started. */
  readonly baselineBytes?: number;
  /** heap: `HeapAlloc` after GC once synced. */
  readonly heapBytes?: number;
  /** heap: `(heapBytes - baselineBytes) / objects`. */
  readonly bytesPerObject?: number;
  /** watch: handler calls counted, the initial list's adds aside (`--events`, unless timed out). */
  readonly events?: number;
  /** watch: from the first of them to the last, in ms. */
  readonly ms?: number;
  /** watch: from the sync to the last of them, in ms. */
  readonly sinceSyncMs?: number;
  /** watch: `(events - 1) / ms`, per second. */
  readonly perSecond?: number;
  /** watch: `--timeout` came before `--events` events. */
  readonly timedOut?: boolean;
}

/** A stdout line that was not JSON (never written by the peer itself). */
export interface UnparsedLine {
  readonly event: 'unparsed';
  readonly text: string;
}

/** Any line of the peer's. */
export type PeerLine =
  | StartLine
  | AddLine
  | UpdateLine
  | DeleteLine
  | SyncedLine
  | StoreLine
  | WatchErrorLine
  | FatalLine
  | RequestLine
  | ResultLine
  | UnparsedLine;

/** The handler calls among `lines`: add, update and delete lines, in order. */
export function handlerCalls(lines: readonly PeerLine[]): (AddLine | UpdateLine | DeleteLine)[] {
  return lines.filter((l): l is AddLine | UpdateLine | DeleteLine => l.event === 'add' || l.event === 'update' || l.event === 'delete');
}

/** Parses one stdout line. */
export function parsePeerLine(text: string): PeerLine {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && typeof (value as { event?: unknown }).event === 'string') return value as PeerLine;
  } catch {
    // not JSON: reported as unparsed below
  }
  return { event: 'unparsed', text };
}
