/**
 * Builders of the objects tests feed the informer, the store and the simulator: one small object
 * (`testObject`, metadata only, for reflector and store tests written as tables of events) and a
 * pod with a spec (`pod`, for anything that reads labels, phases or nodes).
 */
import type { KubeObject, ListPage } from '@rxinformer/core';

/** A metadata-only, pod-like object: `default/<name>` at resource version `rv`, UID `uid-<name>`. */
export function testObject(name: string, rv: string, uid = `uid-${name}`, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, uid, resourceVersion: rv } };
}

/** A list page at `resourceVersion`, with a continue token when `token` is given. */
export function page<T extends KubeObject>(items: T[], resourceVersion: string | undefined, token?: string): ListPage<T> {
  return {
    kind: 'List',
    apiVersion: 'v1',
    metadata: { ...(resourceVersion ? { resourceVersion } : {}), ...(token ? { continue: token } : {}) },
    items,
  };
}

/** What `pod` can set; everything is optional. */
export interface PodOptions {
  /** Default `default`; `null` for none (as a pod written to the simulator, which takes it from the URL). */
  namespace?: string | null;
  /** Default: none (the simulator assigns one). */
  uid?: string;
  /** Default: none. */
  resourceVersion?: string;
  /** Default: none. */
  labels?: Record<string, string>;
  /** `status.phase`; default: no status. */
  phase?: string;
  /** `spec.nodeName`; default: none. */
  nodeName?: string;
  /** The one container's image. Default `nginx`. */
  image?: string;
  /** Default: none. */
  creationTimestamp?: string;
  /** `metadata.finalizers`; default: none. */
  finalizers?: string[];
}

/** A pod with a `spec` (one container), as tests of views, indexes and the simulator want it. */
export interface TestPod extends KubeObject {
  spec: { containers: { name: string; image: string }[]; nodeName?: string };
  status?: { phase?: string };
}

/**
 * A pod named `name` in `default`, with one container.
 *
 * @example
 * pod('web', { labels: { app: 'web' }, phase: 'Running', nodeName: 'n1' });
 */
export function pod(name: string, options: PodOptions = {}): TestPod {
  const namespace = options.namespace === undefined ? 'default' : options.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(namespace !== null && { namespace }),
      ...(options.uid !== undefined && { uid: options.uid }),
      ...(options.resourceVersion !== undefined && { resourceVersion: options.resourceVersion }),
      ...(options.labels !== undefined && { labels: options.labels }),
      ...(options.creationTimestamp !== undefined && { creationTimestamp: options.creationTimestamp }),
      ...(options.finalizers !== undefined && { finalizers: options.finalizers }),
    },
    spec: {
      containers: [{ name: 'main', image: options.image ?? 'nginx' }],
      ...(options.nodeName !== undefined && { nodeName: options.nodeName }),
    },
    ...(options.phase !== undefined && { status: { phase: options.phase } }),
  };
}
