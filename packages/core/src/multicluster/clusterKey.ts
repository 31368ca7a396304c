/**
 * The cluster in a key: `cluster://NAME/namespace/name` (or `cluster://NAME/name` for a
 * cluster-scoped object), the string form of multicluster-runtime's request, so that a work queue,
 * a log line and a dashboard's row all carry the cluster without another type.
 */
import { InvalidOptionsError } from '../errors.ts';

/** The scheme of a cluster key. */
export const CLUSTER_KEY_SCHEME = 'cluster://';

/**
 * Throws `InvalidOptionsError` unless `name` can name a cluster: a non-empty string without `/`
 * (it ends at the first `/` of a key) nor control characters.
 */
export function checkClusterName(name: unknown): asserts name is string {
  // eslint-disable-next-line no-control-regex
  if (typeof name !== 'string' || name === '' || /[/\u0000-\u001f\u007f]/.test(name))
    throw new InvalidOptionsError(
      `a cluster name must be a non-empty string without "/" or control characters, got ${JSON.stringify(name)}`,
    );
}

/**
 * The key of `key` (an informer's: `namespace/name` or `name`) in cluster `cluster`.
 *
 * @example
 * clusterKey('eu-1', 'default/web'); // 'cluster://eu-1/default/web'
 */
export function clusterKey(cluster: string, key: string): string {
  return `${CLUSTER_KEY_SCHEME}${cluster}/${key}`;
}

/** A cluster key read: the cluster, and the key in it. */
export interface ClusterKeyParts {
  /** The cluster's name. */
  readonly cluster: string;
  /** The key in the cluster: `namespace/name`, or `name`. */
  readonly key: string;
}

/**
 * The cluster and the informer's key of a cluster key; `undefined` for a key without the
 * `cluster://` scheme (a single cluster's).
 *
 * @example
 * parseClusterKey('cluster://eu-1/default/web'); // { cluster: 'eu-1', key: 'default/web' }
 */
export function parseClusterKey(key: string): ClusterKeyParts | undefined {
  if (!key.startsWith(CLUSTER_KEY_SCHEME)) return undefined;
  const slash = key.indexOf('/', CLUSTER_KEY_SCHEME.length);
  if (slash <= CLUSTER_KEY_SCHEME.length) return undefined;
  return { cluster: key.slice(CLUSTER_KEY_SCHEME.length, slash), key: key.slice(slash + 1) };
}
