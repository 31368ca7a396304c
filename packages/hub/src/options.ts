/**
 * The options of `createHub`, checked and filled with defaults.
 */
import { InvalidOptionsError, type InformerFactory, type KubeObject } from '@rxinformer/core';
import type { InformerServerOptions } from '@rxinformer/core/channel';
import { checkDuration } from '@rxinformer/core/time';
import type { Authenticator, Authorizer } from './auth.ts';
import type { HubLogger } from './log.ts';
import type { OriginPolicy } from './upgrade.ts';

/**
 * Projections a hub serves: a subscription's `projection` field (what the hub's browser source sends
 * for a `projected()` descriptor, or `withFields({ projection })`) as a transform of the objects it
 * is sent; `fieldPathProjections()` is the default. The hub calls `transformOf`
 * once per distinct `keyOf`, and each transform once per object (memoized for every stream that asks
 * the same projection).
 */
export interface ProjectionProvider {
  /** A key equal for equal projections; throws (an `InvalidOptionsError`: 400) for one that is not. */
  keyOf(projection: unknown): string;
  /** The transform of `projection` (one `keyOf` accepted). */
  transformOf(projection: unknown): (object: KubeObject) => KubeObject;
}

/** The limits of a hub. */
export interface HubLimits {
  /** Connections one user (by username) may hold open on this replica; more are refused 429. Default 32. */
  maxConnectionsPerUser?: number;
  /** Streams (lists and watches) one connection may have open; more are answered 429. Default 256. */
  maxStreamsPerConnection?: number;
  /** Largest message a client may send, in bytes; a larger one closes the connection (1009). Default 65 536. */
  maxMessageBytes?: number;
  /** Messages a client may send per second on average; past it (and `messageBurst`) the connection is closed (1008). Default 50. */
  maxMessagesPerSecond?: number;
  /** Messages a client may send at once above the average. Default 200. */
  messageBurst?: number;
  /** Bytes buffered for a client at which its watch events are held, coalesced by key. Default 1 MiB. */
  highWaterBytes?: number;
  /** Bytes of events held for one stream past which it gets a 410 (its client relists). Default 8 MiB. */
  maxPendingBytes?: number;
  /** Bytes buffered for a client past which its connection is closed (1013). Default 64 MiB. */
  maxBufferedBytes?: number;
}

/** Options of `createHub`. */
export interface HubOptions {
  /** The clusters served, by name: an informer factory each (the hub starts them, and shuts them down on `close`). Required. */
  clusters: Readonly<Record<string, InformerFactory>>;
  /** The cluster of a subscription that names none. Default: `default` when there is one, else the only one. */
  defaultCluster?: string;
  /** Names each connection's user at its upgrade. Required. */
  authenticator: Authenticator;
  /** Decides each subscription. Required. */
  authorizer: Authorizer;
  /** Which origins may connect. Default `'same-origin'`. */
  origins?: OriginPolicy;
  /** The path the hub answers upgrades on (`attach`). Default `/hub`. */
  path?: string;
  /** Limits on clients. */
  limits?: HubLimits;
  /** Field-path projections served (`{ paths }`). Default `fieldPathProjections()`; Table rows (`{ table: true }`) are always served. */
  projections?: ProjectionProvider;
  /** The channel server's own options (history size, bookmark interval, idle timeout, ...). */
  channel?: Pick<
    InformerServerOptions,
    'historySize' | 'bookmarkIntervalMs' | 'continueTtlMs' | 'maxPinnedLists' | 'rvWaitMs' | 'idleTimeoutMs' | 'maxEventsPerMessage'
  >;
  /** Told of connections, refusals and violations; never of credentials (see `HubLogger`). Default: none. */
  log?: HubLogger;
  /** How often `metrics$` emits, in ms: any length (periods past ~24.8 days too); `Infinity`: never. Default 5000. */
  metricsIntervalMs?: number;
}

/** `HubOptions` with every default in place. */
export interface ResolvedHubOptions extends Omit<HubOptions, 'limits' | 'defaultCluster' | 'origins' | 'path' | 'metricsIntervalMs'> {
  readonly defaultCluster: string;
  readonly origins: OriginPolicy;
  readonly path: string;
  readonly limits: Required<HubLimits>;
  readonly metricsIntervalMs: number;
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InvalidOptionsError(`createHub: ${name} must be a number > 0`);
  return value;
};

/** Checks `options` and fills in the defaults. */
export function resolveHubOptions(options: HubOptions): ResolvedHubOptions {
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('createHub needs options');
  const names = Object.keys(options.clusters ?? {});
  if (names.length === 0) throw new InvalidOptionsError('createHub needs at least one cluster (clusters: { default: factory })');
  if (typeof options.authenticator?.authenticate !== 'function') throw new InvalidOptionsError('createHub needs an authenticator');
  if (typeof options.authorizer?.authorize !== 'function') throw new InvalidOptionsError('createHub needs an authorizer');
  const defaultCluster = options.defaultCluster ?? (names.includes('default') ? 'default' : names.length === 1 ? names[0] : undefined);
  if (defaultCluster === undefined || !names.includes(defaultCluster))
    throw new InvalidOptionsError(`createHub: defaultCluster must name one of the clusters (${names.join(', ')})`);
  const path = options.path ?? '/hub';
  if (!path.startsWith('/')) throw new InvalidOptionsError('createHub: path must start with /');
  const l = options.limits ?? {};
  return {
    ...options,
    defaultCluster,
    origins: options.origins ?? 'same-origin',
    path,
    metricsIntervalMs: checkDuration('metricsIntervalMs', options.metricsIntervalMs, 5000, { min: 0, exclusive: true, infinite: true }),
    limits: {
      maxConnectionsPerUser: positive('maxConnectionsPerUser', l.maxConnectionsPerUser, 32),
      maxStreamsPerConnection: positive('maxStreamsPerConnection', l.maxStreamsPerConnection, 256),
      maxMessageBytes: positive('maxMessageBytes', l.maxMessageBytes, 65_536),
      maxMessagesPerSecond: positive('maxMessagesPerSecond', l.maxMessagesPerSecond, 50),
      messageBurst: positive('messageBurst', l.messageBurst, 200),
      highWaterBytes: positive('highWaterBytes', l.highWaterBytes, 1 << 20),
      maxPendingBytes: positive('maxPendingBytes', l.maxPendingBytes, 8 << 20),
      maxBufferedBytes: positive('maxBufferedBytes', l.maxBufferedBytes, 64 << 20),
    },
  };
}
