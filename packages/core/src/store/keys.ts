/**
 * Object keys and the default namespace index, as client-go's `MetaNamespaceKeyFunc` and
 * `MetaNamespaceIndexFunc` define them.
 */
import { InvalidObjectError } from '../errors.ts';
import type { IndexFunc, KubeObject } from '../types.ts';

/**
 * The store key of an object: `namespace/name`, or `name` for cluster-scoped objects.
 * Throws `InvalidObjectError` when `metadata.name` is missing or empty.
 *
 * @example
 * metaNamespaceKeyFunc({ metadata: { namespace: 'default', name: 'web' } }); // 'default/web'
 */
export function metaNamespaceKeyFunc(obj: KubeObject): string {
  const meta = obj?.metadata;
  const name = meta?.name;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidObjectError('object has no metadata.name', obj);
  }
  const namespace = meta?.namespace;
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${name}` : name;
}

/**
 * Splits a key made by `metaNamespaceKeyFunc` into its namespace (absent for cluster scope) and name.
 *
 * @example
 * splitMetaNamespaceKey('default/web'); // { namespace: 'default', name: 'web' }
 * splitMetaNamespaceKey('node-1');      // { name: 'node-1' }
 */
export function splitMetaNamespaceKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The name of the index every store maintains by default. */
export const NAMESPACE_INDEX = 'namespace';

/**
 * Files an object under its namespace. Cluster-scoped objects are filed under `""`, so
 * `byIndex(NAMESPACE_INDEX, '')` lists them.
 */
export const namespaceIndexFunc: IndexFunc = (obj) => [obj.metadata?.namespace ?? ''];
