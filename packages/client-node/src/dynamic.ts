/**
 * Dynamic resources: any group/version/resource, or apiVersion + kind, resolved through the API
 * server's discovery (`/api/v1`, `/apis/{group}/{version}`) to learn its scope and kind. Works for
 * custom resources created at run time.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { KubeApiError, RxInformerError, type KubeObject, type Wire } from '@rxinformer/core';
import { checkScheduler, pathSegment } from '@rxinformer/core/http';
import { checkDuration, scheduleAfter } from '@rxinformer/core/time';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { RequestTimeoutError } from './errors.ts';
import { sharedKubeTransport, type KubeTransport } from './kubeTransport.ts';
import { defineResource, type KubeResource } from './resources.ts';

/** What to resolve: a group/version/resource, or an apiVersion and kind. */
export type ResourceRef = { group?: string; version: string; resource: string } | { apiVersion: string; kind: string };

/** Discovery found no such resource (unknown group/version, or no resource of that name or kind). */
export class ResourceNotFoundError extends RxInformerError {
  /** Always `ResourceNotFoundError`: set as a string, so it survives minification. */
  override readonly name: string = 'ResourceNotFoundError';
  /** What was asked for. */
  readonly ref: ResourceRef;

  constructor(ref: ResourceRef, detail: string, options?: { cause?: unknown }) {
    super('ResourceNotFound', `no resource ${describeRef(ref)} on the server: ${detail}`, options);
    this.ref = ref;
  }
}

/**
 * Discovery found the resource, but the server cannot list and watch it (e.g. `metrics.k8s.io`
 * pods, `bindings`, `selfsubjectaccessreviews`): an informer of it would fail forever.
 */
export class ResourceNotWatchableError extends RxInformerError {
  /** Always `ResourceNotWatchableError`: set as a string, so it survives minification. */
  override readonly name: string = 'ResourceNotWatchableError';
  /** What was asked for. */
  readonly ref: ResourceRef;
  /** The verbs the server announced for it. */
  readonly verbs: readonly string[];

  constructor(ref: ResourceRef, verbs: readonly string[]) {
    super('NotWatchable', `${describeRef(ref)} cannot be listed and watched (the server allows only: ${verbs.join(', ') || 'nothing'})`);
    this.ref = ref;
    this.verbs = verbs;
  }
}

/** The default time limit of a discovery request, in ms. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 30_000;

/** Options of `createDiscovery`. */
export interface DiscoveryOptions {
  /**
   * Time limit of each discovery request, in ms; past it the lookup rejects with a
   * `RequestTimeoutError`. A number > 0 of any length (past a JavaScript timer's 24.8 days too), or
   * `Infinity` for no limit; 0, NaN and negative values throw `InvalidOptionsError`. Default 30,000.
   */
  timeoutMs?: number;
  /** Aborts every discovery request in flight and to come (e.g. when its factory closes). Default: none. */
  signal?: AbortSignal;
  /** Where the time limit runs (a `TestScheduler` in tests). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The subset of `APIResourceList` discovery reads. */
interface ApiResourceList {
  groupVersion?: string;
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** A discovery client with a per-groupVersion cache, refreshed when a lookup misses. */
export interface Discovery {
  /**
   * The descriptor of `ref`; rejects with `ResourceNotFoundError` when the server has none,
   * `ResourceNotWatchableError` when its verbs lack `list` or `watch`, `InvalidPathSegmentError`
   * (unsent) when its group or version is not one path segment (`..`, holding `/` or `%`).
   */
  resolve<T extends KubeObject = KubernetesObject>(ref: ResourceRef): Promise<KubeResource<Wire<T>>>;
  /** Forgets every cached groupVersion. */
  invalidate(): void;
}

/**
 * Creates a discovery client over a transport.
 *
 * Caveat: a cached answer is refetched only on a miss; a resource whose scope changed (a CRD deleted
 * and recreated cluster-scoped) needs `invalidate()`. The verbs are checked only when the server
 * lists them (every real API server does).
 *
 * @example
 * const discovery = createDiscovery(sharedKubeTransport(kc), { timeoutMs: 10_000 });
 * const widgets = await discovery.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' });
 */
export function createDiscovery(transport: KubeTransport, options: DiscoveryOptions = {}): Discovery {
  const timeoutMs = checkDuration('timeoutMs', options.timeoutMs, DEFAULT_DISCOVERY_TIMEOUT_MS, { exclusive: true, infinite: true });
  checkScheduler(options.scheduler);
  const scheduler = options.scheduler ?? asyncScheduler;
  const cache = new Map<string, Promise<ApiResourceList>>();
  const fetchList = async (group: string, version: string): Promise<ApiResourceList> => {
    const v = pathSegment('version', version); // `..` would reach another path: InvalidPathSegmentError
    const path = group ? `/apis/${pathSegment('group', group)}/${v}` : `/api/${v}`;
    const timeout = new AbortController(); // not AbortSignal.timeout: its Node timer fires at once past 24.8 days
    const timer = scheduleAfter(scheduler, timeoutMs, () => timeout.abort(new RequestTimeoutError(path, timeoutMs)));
    try {
      const signal = options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal;
      return await transport.getJson<ApiResourceList>(path, signal, 'objectBody');
    } catch (e) {
      if (timeout.signal.aborted && !options.signal?.aborted) throw new RequestTimeoutError(path, timeoutMs, { cause: e });
      throw e;
    } finally {
      timer.unsubscribe();
    }
  };
  const lookup = async (group: string, version: string, fresh: boolean): Promise<ApiResourceList> => {
    const key = `${group}/${version}`;
    let p = fresh ? undefined : cache.get(key);
    if (!p) {
      const fetched = fetchList(group, version);
      cache.set(key, fetched);
      // A failure is not cached, unless a newer lookup has replaced it meanwhile (that one stays).
      fetched.catch(() => {
        if (cache.get(key) === fetched) cache.delete(key);
      });
      p = fetched;
    }
    return p;
  };
  return {
    async resolve<T extends KubeObject = KubernetesObject>(ref: ResourceRef): Promise<KubeResource<Wire<T>>> {
      const { group, version } = groupVersionOf(ref);
      const find = (list: ApiResourceList) =>
        (list.resources ?? []).find((r) => !r.name.includes('/') && ('kind' in ref ? r.kind === ref.kind : r.name === ref.resource));
      let found: ReturnType<typeof find>;
      for (const fresh of [false, true]) {
        let list: ApiResourceList;
        try {
          list = await lookup(group, version, fresh);
        } catch (e) {
          if (e instanceof KubeApiError && e.code === 404) {
            if (!fresh) continue;
            throw new ResourceNotFoundError(ref, `the server does not serve ${group ? `${group}/` : ''}${version}`, { cause: e });
          }
          throw e;
        }
        if ((found = find(list))) break;
      }
      if (!found)
        throw new ResourceNotFoundError(ref, `${group ? `${group}/` : ''}${version} has no such ${'kind' in ref ? 'kind' : 'resource'}`);
      if (found.verbs && !(found.verbs.includes('list') && found.verbs.includes('watch')))
        throw new ResourceNotWatchableError(ref, found.verbs);
      return defineResource<T>({ group, version, resource: found.name, kind: found.kind, namespaced: found.namespaced });
    },
    invalidate: () => cache.clear(),
  };
}

const discoveries = new WeakMap<KubeTransport, Discovery>();

/**
 * Resolves `ref` through the discovery of `kc`'s current cluster (cached per KubeConfig).
 *
 * @example
 * const crontabs = await discoverResource(kc, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' });
 * factory.informerFor(crontabs);
 */
export function discoverResource<T extends KubeObject = KubernetesObject>(
  kc: KubeConfig,
  ref: ResourceRef,
): Promise<KubeResource<Wire<T>>> {
  const transport = sharedKubeTransport(kc);
  let discovery = discoveries.get(transport);
  if (!discovery) discoveries.set(transport, (discovery = createDiscovery(transport)));
  return discovery.resolve<T>(ref);
}

function groupVersionOf(ref: ResourceRef): { group: string; version: string } {
  if ('apiVersion' in ref) {
    const slash = ref.apiVersion.lastIndexOf('/');
    return slash < 0
      ? { group: '', version: ref.apiVersion }
      : { group: ref.apiVersion.slice(0, slash), version: ref.apiVersion.slice(slash + 1) };
  }
  return { group: ref.group ?? '', version: ref.version };
}

function describeRef(ref: ResourceRef): string {
  return 'apiVersion' in ref ? `${ref.apiVersion} ${ref.kind}` : `${ref.group ? `${ref.group}/` : ''}${ref.version} ${ref.resource}`;
}
