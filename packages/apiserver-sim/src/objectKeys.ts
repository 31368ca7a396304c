/**
 * The names and namespaces of request paths as kube-apiserver turns them into storage keys: a name
 * that is not one path segment (`.`, `..`, holding `/` or `%`) is a 400 before anything is read
 * (the registry's key function), a namespace `.` or `..` a 500 from etcd's key check (quoting the
 * key), and a create in a namespace that is not one path segment a 500 from the NamespaceLifecycle
 * admission, whose client refuses the namespace's name as client-go does.
 */
import { pathSegmentProblems } from '@rxinformer/core/http';
import type { ResourceInfo } from './resources.ts';
import { errors } from './status.ts';

/** The etcd key prefixes (less `/registry/`) of built-in resources stored under another name. */
const STORED_AS: Readonly<Record<string, string>> = {
  '/services': 'services/specs',
  '/endpoints': 'services/endpoints',
  'networking.k8s.io/ingresses': 'ingress',
  'events.k8s.io/events': 'events', // stored as core/v1 Events
};

/** The key a resource's objects are stored under, as etcd's errors quote it: `/configmaps/ns/name`, `/example.com/widgets/ns`. */
function storageKey(res: ResourceInfo, namespace: string, name?: string): string {
  const prefix = res.custom ? `${res.group}/${res.resource}` : (STORED_AS[`${res.group}/${res.resource}`] ?? res.resource);
  return `/${prefix}/${namespace}${name === undefined ? '' : `/${name}`}`;
}

/** The 500 etcd's key check answers for a `.` or `..` segment (kube-apiserver does not check the namespace of a path). */
function checkNamespace(res: ResourceInfo, namespace: string | undefined, name?: string): void {
  if (res.namespaced && (namespace === '.' || namespace === '..'))
    throw errors.unclassified(`invalid key: ${JSON.stringify(storageKey(res, namespace, name))}`);
}

/**
 * Throws the API server's error for the key of one object: 400 `Name parameter invalid: "..":
 * may not be '..'` for a name that is not one path segment, then the 500 of a `.` or `..` namespace.
 */
export function checkObjectKey(res: ResourceInfo, namespace: string | undefined, name: string): void {
  if (name === '') throw errors.badRequest('Name parameter required.');
  const problems = pathSegmentProblems(name);
  if (problems.length > 0) throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
  checkNamespace(res, namespace, name);
}

/** Throws the 500 of a list, watch or collection delete in namespace `.` or `..`. */
export function checkCollectionKey(res: ResourceInfo, namespace: string | undefined): void {
  checkNamespace(res, namespace);
}

/**
 * Throws the 500 the NamespaceLifecycle admission answers for a create in a namespace that is not
 * one path segment: its client refuses to look the namespace up (`invalid resource name "..":
 * [may not be '..']`, client-go's words).
 */
export function checkCreateNamespace(namespace: string): void {
  const problems = pathSegmentProblems(namespace);
  if (problems.length > 0) throw errors.internal(`invalid resource name ${JSON.stringify(namespace)}: [${problems.join(' ')}]`);
}
