/** The errors the reflector reports on its status stream (as `lastError`), besides the transport's. */
import { RxInformerError } from '../errors.ts';

/** The watch stream stayed silent past its deadline. */
export class WatchIdleError extends RxInformerError {
  /** Always `WatchIdleError`: set as a string, so it survives minification. */
  override readonly name: string = 'WatchIdleError';
  constructor(ms: number) {
    super('WatchIdle', `watch stream idle for ${ms} ms; reconnecting`);
  }
}

/**
 * A watch stayed open but silent (no event, no bookmark) for the stall check's `afterMs` while the
 * server moved on: a consistent list answered another resourceVersion than the last one seen. The
 * reflector closes that watch and resumes from `lastSeen` (no relist).
 */
export class WatchStalledError extends RxInformerError {
  /** Always `WatchStalledError`: set as a string, so it survives minification. */
  override readonly name: string = 'WatchStalledError';
  /** How long the watch had been silent when it was checked, in ms. */
  readonly silentMs: number;
  /** The last resourceVersion the watch delivered (where the new watch resumes). */
  readonly lastSeen: string;
  /** The resourceVersion the check's list answered. */
  readonly serverAt: string;

  constructor(silentMs: number, lastSeen: string, serverAt: string) {
    super(
      'WatchStalled',
      `watch silent for ${silentMs} ms while the server moved on (resourceVersion ${lastSeen} -> ${serverAt}); re-watching from ${lastSeen}`,
    );
    this.silentMs = silentMs;
    this.lastSeen = lastSeen;
    this.serverAt = serverAt;
  }
}

/** Watches kept closing at once with no event. */
export class WatchClosedError extends RxInformerError {
  /** Always `WatchClosedError`: set as a string, so it survives minification. */
  override readonly name: string = 'WatchClosedError';
  constructor(count: number) {
    super('WatchClosedImmediately', `${count} watches in a row closed at once with no event; relisting`);
  }
}

/**
 * A streaming list (`sendInitialEvents`) answered as a plain watch: a live change, a plain bookmark,
 * the end of the stream or a silence as long as the stall check's before the
 * `k8s.io/initial-events-end` bookmark. A server that ignores the parameter (older than 1.27, or an
 * aggregated API server on an old library) answers so; the reflector pages, and so do the others
 * sharing its `streamingListSupport` until the refusal is forgotten. (kube-apiserver 1.27+ with
 * the WatchList gate off answers 422 instead.)
 */
export class WatchListUnsupportedError extends RxInformerError {
  /** Always `WatchListUnsupportedError`: set as a string, so it survives minification. */
  override readonly name: string = 'WatchListUnsupportedError';
  /**
   * What the server sent in place of the initial events' end: `MODIFIED`, `DELETED`, `BOOKMARK`,
   * `closed` (the stream ended) or `silence` (nothing for `stallCheck.afterMs`).
   */
  readonly received: string;

  constructor(received: string) {
    super(
      'WatchListUnsupported',
      `the server answered a streaming list as a plain watch (${WHAT_CAME[received] ?? `a ${received} event came`} ` +
        'before the initial-events-end bookmark): listing in pages',
    );
    this.received = received;
  }
}

/** How `WatchListUnsupportedError` tells of what came that is no event. */
const WHAT_CAME: Record<string, string> = { closed: 'the stream ended', silence: 'the stream fell silent' };

/** A watch event whose `type` the protocol does not define. */
export class UnknownWatchEventError extends RxInformerError {
  /** Always `UnknownWatchEventError`: set as a string, so it survives minification. */
  override readonly name: string = 'UnknownWatchEventError';
  constructor(type: unknown) {
    super('UnknownWatchEvent', `watch event of unknown type ${JSON.stringify(type)} skipped`);
  }
}

/** A list went past `maxListPages` or `maxListItems`: it was stopped, and is retried after a backoff. */
export class ListTooLargeError extends RxInformerError {
  /** Always `ListTooLargeError`: set as a string, so it survives minification. */
  override readonly name: string = 'ListTooLargeError';
  /** Which bound was crossed. */
  readonly limit: 'maxListPages' | 'maxListItems';
  /** Pages received when the list was stopped (0 for a streaming list). */
  readonly pages: number;
  /** Objects received when the list was stopped. */
  readonly items: number;

  constructor(limit: 'maxListPages' | 'maxListItems', max: number, received: { pages: number; items: number }) {
    super(
      'ListTooLarge',
      limit === 'maxListPages'
        ? `list stopped after ${received.pages} pages (${received.items} objects): the server kept sending continue tokens past maxListPages ${max}`
        : `list stopped at ${received.items} objects (${received.pages} pages), more than maxListItems ${max}`,
    );
    this.limit = limit;
    this.pages = received.pages;
    this.items = received.items;
  }
}
