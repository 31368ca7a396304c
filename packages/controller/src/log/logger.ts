/**
 * The controller's logger: a structured interface that pino and `console` both satisfy — fields
 * first, then the message — a child per reconcile (controller, key, reconcile id), and reconcile
 * failures told once per key and kind within a window, however often the key is retried.
 */
import type { SchedulerLike } from 'rxjs';

/** The fields of a log line: `controller`, `key`, `reconcileID`, `error`, … */
export type LogFields = Record<string, unknown>;

/**
 * Where a controller logs: pino's logger fits as it is (`logger.info({ key }, 'reconciled')` is
 * its call), and so does `console` (which prints the fields, then the message). `debug` and `child`
 * are optional: without `child`, a child's fields are added to each line's own.
 *
 * @example
 * controllerFor(factory, pods, { name: 'reaper', logger: pino() });   // JSON lines
 * controllerFor(factory, pods, { name: 'reaper', logger: console });  // the default
 */
export interface Logger {
  /** Something failed. */
  error(fields: LogFields, message: string): void;
  /** Something went wrong that may mend itself. */
  warn(fields: LogFields, message: string): void;
  /** Progress. */
  info(fields: LogFields, message: string): void;
  /** Detail, for debugging. */
  debug?(fields: LogFields, message: string): void;
  /** A logger adding `bindings` to every line (pino's `child`). */
  child?(bindings: LogFields): Logger;
}

/** The levels of a `Logger`. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** True when `value` has the methods of a `Logger` (`debug` and `child` optional). */
export function isLogger(value: unknown): value is Logger {
  const l = value as Partial<Record<LogLevel | 'child', unknown>> | null;
  if (typeof l !== 'object' || l === null) return false;
  return (
    ['error', 'warn', 'info'].every((m) => typeof l[m as LogLevel] === 'function') &&
    (l.debug === undefined || typeof l.debug === 'function') &&
    (l.child === undefined || typeof l.child === 'function')
  );
}

/**
 * A logger whose lines carry `bindings`: the logger's own `child` when it has one, else one that
 * adds them to each line's fields. A logger that throws is ignored: a log line must not fail a
 * reconcile.
 */
export function childLogger(logger: Logger, bindings: LogFields): Logger {
  if (typeof logger.child === 'function') {
    try {
      return quiet(logger.child(bindings));
    } catch {
      // fall back to adding the fields ourselves
    }
  }
  const at =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void =>
      logger[level]?.({ ...bindings, ...fields }, message);
  return quiet({
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: (more) => childLogger(logger, { ...bindings, ...more }),
  });
}

/** `logger` with each call's throw swallowed. */
function quiet(logger: Logger): Logger {
  const at =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void => {
      try {
        logger[level]?.(fields, message);
      } catch {
        // a failing logger must not fail what it logs
      }
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: (b) => childLogger(logger, b) };
}

/** What `FailureLog` remembers of a key: the kind of failure last told, when, and how many since. */
interface Told {
  readonly kind: string;
  readonly atMs: number;
  suppressed: number;
}

/**
 * Tells of each key's reconcile failures, throttled: the first failure of a kind (its error's name
 * and message) is logged, repeats of it within `windowMs` only counted, and the next line after the
 * window says how many were not told. A success forgets the key (its next failure is told again).
 */
export class FailureLog {
  readonly #told = new Map<string, Told>();
  readonly #windowMs: number;
  readonly #scheduler: SchedulerLike;

  constructor(windowMs: number, scheduler: SchedulerLike) {
    this.#windowMs = windowMs;
    this.#scheduler = scheduler;
  }

  /**
   * Logs `message` at `level` on `log` with `error`, unless the same kind of failure of `key` was
   * told less than `windowMs` ago; true when it logged.
   */
  failed(log: Logger, level: LogLevel, key: string, error: unknown, message: string, fields: LogFields = {}): boolean {
    const kind = kindOf(error);
    const now = this.#scheduler.now();
    const last = this.#told.get(key);
    if (last !== undefined && last.kind === kind && now - last.atMs < this.#windowMs) {
      last.suppressed++;
      return false;
    }
    const repeats = last !== undefined && last.kind === kind && last.suppressed > 0 ? { suppressed: last.suppressed } : {};
    this.#told.set(key, { kind, atMs: now, suppressed: 0 });
    log[level]?.({ ...fields, ...repeats, error }, message);
    return true;
  }

  /** The key reconciled: its next failure is told at once. */
  succeeded(key: string): void {
    if (this.#told.size > 0) this.#told.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.#told.clear();
  }
}

/** A failure's kind: its name and message (a stack or a cause does not make another kind). */
function kindOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
