/**
 * What the soak needs of an informer library under test: start and sync, its store's identities,
 * the views of its handlers, and what it went through (relists, errors, restarts).
 */
import type { IdentityMap, HandlerView } from './convergence.ts';

/** The libraries the soak compares. */
export type SoakLibrary = 'rxinformer' | 'clientNode';

/** What a client went through during a run. */
export interface ClientStats {
  /** Lists after the first one. */
  relists: number;
  /** Errors the library reported (status stream or 'error' events). */
  errorsSeen: number;
  /** Those errors by label (e.g. `KubeApiError 401`, `WatchIdleError`). */
  errorKinds: Record<string, number>;
  /** The first message seen of each label (with its cause's, if any), e.g. `terminated (other side closed)`. */
  errorSamples: Record<string, string>;
  /** Times the soak restarted the informer after an error (client-node only). */
  restarts: number;
  /** Handler callbacks that threw (they should not). */
  handlerErrors: number;
}

/** An informer library wired to a simulator, with its handlers recording their views. */
export interface SoakClient {
  readonly library: SoakLibrary;
  /** Starts the informer; resolves once its initial list is in its store. */
  start(): Promise<void>;
  /** The identities of the objects in the library's store now. */
  store(): IdentityMap;
  /** The handlers' views, rebuilt from the notifications each received. */
  readonly views: readonly HandlerView[];
  stats(): ClientStats;
  /** Stops the informer and releases its connections and timers. */
  close(): Promise<void>;
}

/** Counts an error under a short label: its class name, its HTTP code if any, and whether a list's continue token expired. */
export function countError(stats: ClientStats, error: unknown): void {
  const e = error as { name?: string; code?: unknown; statusCode?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  const expiredContinue = code === 410 && typeof e?.message === 'string' && e.message.includes('continue parameter is too old');
  const label = `${e?.name ?? typeof error}${code !== undefined ? ` ${code}` : ''}${expiredContinue ? ' (continue expired)' : ''}`;
  stats.errorsSeen++;
  stats.errorKinds[label] = (stats.errorKinds[label] ?? 0) + 1;
  stats.errorSamples[label] ??= messageOf(error);
}

/** An error's message, with its cause's in brackets, on one line of at most 200 characters. */
function messageOf(error: unknown): string {
  const e = error as { message?: unknown; cause?: { message?: unknown } } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const cause = typeof e?.cause?.message === 'string' ? ` (${e.cause.message})` : '';
  return `${message}${cause}`.replace(/\s+/g, ' ').slice(0, 200);
}

/** Fresh, zeroed stats. */
export function emptyStats(): ClientStats {
  return { relists: 0, errorsSeen: 0, errorKinds: {}, errorSamples: {}, restarts: 0, handlerErrors: 0 };
}

/** A copy of `stats` that later counts do not change. */
export function copyStats(stats: ClientStats): ClientStats {
  return { ...stats, errorKinds: { ...stats.errorKinds }, errorSamples: { ...stats.errorSamples } };
}
