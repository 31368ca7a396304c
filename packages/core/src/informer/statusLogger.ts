/**
 * The factory's optional logger: each informer's status changes told in words (starts listing,
 * synced, an error, recovered), so that an informer that cannot sync says why without anyone
 * subscribing to `status$`.
 */
import { KubeApiError } from '../errors.ts';
import type { InformerScope, ReflectorStatus } from '../types.ts';

/**
 * Where the factory tells of its informers' status changes (factory option `logger`). Each method
 * is optional; `console` fits. `info`: an informer starts listing, has synced, recovered after an
 * error. `warn`: an error it retries (once per distinct error, not per retry). `error`: an answer
 * that retrying will not change: 400, 401, 403, 404 and other 4xx but 408, 409, 410 and 429 (a
 * bad selector, missing RBAC, a resource the server does not serve); the informer still retries.
 *
 * @example
 * createInformerFactory(source, { logger: console });
 * // warn: informer pods (namespace default): backing off 800 ms after KubeApiError: pods is forbidden…
 */
export interface InformerLogger {
  /** Progress: listing, synced, recovered. */
  info?(message: string, details: InformerLogDetails): void;
  /** An error the informer retries. */
  warn?(message: string, details: InformerLogDetails): void;
  /** An error retrying will not fix by itself. */
  error?(message: string, details: InformerLogDetails): void;
}

/** What a log message is about. */
export interface InformerLogDetails {
  /** The cluster, for an informer of a multi-cluster factory. Absent otherwise. */
  readonly cluster?: string;
  /** The resource, qualified by its group when it has one: `pods`, `deployments.apps`. */
  readonly resource: string;
  /** Where the informer lists and watches. */
  readonly scope: InformerScope;
  /** Its status when this was told. */
  readonly status: ReflectorStatus;
}

/**
 * A listener of one informer's `status$` that tells `logger` of what changed: the first `listing`
 * of a run (not each retry), the first sync, each distinct `lastError` (the same error again is
 * not told again until the informer has recovered), and the recovery. A logger that throws is
 * ignored: its failure must not stop the informer's status stream.
 */
export function statusLogger(
  logger: InformerLogger,
  label: string,
  about: Omit<InformerLogDetails, 'status'>,
): (status: ReflectorStatus) => void {
  let phase: ReflectorStatus['phase'] = 'stopped';
  let synced = false;
  let told: string | undefined; // the error last told, until recovered
  const tell = (level: keyof InformerLogger, message: string, details: InformerLogDetails): void => {
    try {
      logger[level]?.(message, details);
    } catch {
      // the logger's own failure: nothing the informer can do about it
    }
  };
  return (status) => {
    const details = { ...about, status };
    if (status.phase === 'listing' && phase === 'stopped') tell('info', `${label}: listing`, details);
    const error = status.lastError;
    if (error !== undefined && errorKey(error) !== told) {
      told = errorKey(error);
      const retry = status.phase === 'backingOff' ? `backing off ${status.backoffMs ?? 0} ms after` : 'error:';
      const message = `${label}: ${retry} ${error.name}: ${error.message}`;
      tell(isLasting(error) ? 'error' : 'warn', message, details);
    } else if (error === undefined && told !== undefined && status.phase !== 'backingOff' && status.phase !== 'stopped') {
      told = undefined;
      tell('info', `${label}: recovered`, details);
    }
    if (status.hasSynced && !synced) tell('info', `${label}: synced`, details);
    phase = status.phase;
    synced = status.hasSynced;
  };
}

/** Checks a factory's `logger` option. */
export function isLogger(logger: unknown): logger is InformerLogger {
  if (logger === null || typeof logger !== 'object') return false;
  const methods = logger as Record<string, unknown>;
  return ['info', 'warn', 'error'].every((m) => methods[m] === undefined || typeof methods[m] === 'function');
}

const errorKey = (error: Error): string => `${error.name}: ${error.message}`;

/** A client error the server will answer again however often it is asked. */
function isLasting(error: Error): boolean {
  return error instanceof KubeApiError && error.code >= 400 && error.code < 500 && ![408, 409, 410, 429].includes(error.code);
}
