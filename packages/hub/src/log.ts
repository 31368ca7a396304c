/**
 * The hub's log lines: what happened and to whom (username, remote address, why), never what a
 * request or message carried: no header, no token, no cookie, no message text.
 */

/** One log line's fields: only these, each a short text or number the hub chose. */
export interface HubLogFields {
  /** The connection's username (authenticated). */
  readonly user?: string;
  /** The peer's address. */
  readonly remote?: string;
  /** Why, as a word of the hub's (`origin`, `rate`, ...). */
  readonly why?: string;
  /** How many, where it counts. */
  readonly count?: number;
}

/**
 * Receives the hub's log lines. `console`-like loggers fit: `(level, message, fields) => console[level](message, fields)`.
 *
 * @example
 * const hub = createHub({ ..., log: (level, message, fields) => console[level](`hub: ${message}`, fields) });
 *
 * Caveat: `message` may name a username (which is not a secret); it never holds a credential.
 */
export type HubLogger = (level: 'info' | 'warn' | 'error', message: string, fields: HubLogFields) => void;
