/**
 * URLs of list and watch requests: the collection path of a resource and the query strings, with
 * only the parameters that are set. Shared by the fetch and the client-node ListerWatchers.
 */
import { InvalidOptionsError } from '../errors.ts';
import { pathSegment } from '../pathSegment.ts';
import type { ListOptions, ResourceDescriptor, WatchOptions } from '../types.ts';

/**
 * The collection path of `resource`, in `namespace` when it is namespaced and one is given
 * (all namespaces otherwise).
 *
 * Caveat: a namespace given for a cluster-scoped resource is an `InvalidOptionsError`, not ignored;
 * a namespace or descriptor part that is not one path segment (`.`, `..`, holding `/` or `%`) an
 * `InvalidPathSegmentError`: the URL would reach another resource.
 *
 * @example
 * resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true }, 'web');
 * // '/apis/apps/v1/namespaces/web/deployments'
 */
export function resourcePath(
  resource: Pick<ResourceDescriptor, 'group' | 'version' | 'resource' | 'namespaced'>,
  namespace?: string,
): string {
  if (!resource.version || !resource.resource) throw new InvalidOptionsError('a resource needs a version and a resource name');
  if (namespace && !resource.namespaced)
    throw new InvalidOptionsError(`${resource.resource} is cluster-scoped: it has no namespace "${namespace}"`);
  const version = pathSegment('version', resource.version);
  const root = resource.group ? `/apis/${pathSegment('group', resource.group)}/${version}` : `/api/${version}`;
  const ns = namespace ? `/namespaces/${pathSegment('namespace', namespace)}` : '';
  return `${root}${ns}/${pathSegment('resource', resource.resource)}`;
}

/**
 * `?limit=500&continue=…` for a list.
 *
 * @example
 * listQuery({ limit: 500, labelSelector: 'app=web' }); // '?limit=500&labelSelector=app%3Dweb'
 */
export function listQuery(o: ListOptions): string {
  return query({
    limit: o.limit,
    continue: o.continue,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    shardSelector: o.shardSelector,
    timeoutSeconds: o.timeoutSeconds,
  });
}

/** `?watch=true&resourceVersion=…` for a watch. */
export function watchQuery(o: WatchOptions): string {
  return query({
    watch: true,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    allowWatchBookmarks: o.allowWatchBookmarks,
    timeoutSeconds: o.timeoutSeconds,
    sendInitialEvents: o.sendInitialEvents,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    shardSelector: o.shardSelector,
  });
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    // An empty resourceVersion is meaningful for streaming lists ("any"); other empty strings are dropped.
    if (v === undefined || v === false || (v === '' && k !== 'resourceVersion')) continue;
    parts.push(`${k}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}
