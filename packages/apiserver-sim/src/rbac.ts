/**
 * Role-based access control as kube-apiserver's RBAC authorizer evaluates it: the Roles,
 * ClusterRoles, RoleBindings and ClusterRoleBindings stored in the simulator
 * (`rbac.authorization.k8s.io/v1`), matched against a request's user and attributes. No
 * aggregation; `system:masters` is allowed everything, and every authenticated user the discovery
 * paths and self-reviews (what kube-apiserver's bootstrap roles give `system:authenticated`).
 */
import type { KubeObject } from '@rxinformer/core';
import type { ObjectStore } from './objects.ts';

/** An authenticated user, as kube-apiserver's `UserInfo`. */
export interface SimUser {
  /** The user's name (`system:serviceaccount:<ns>:<name>` for a ServiceAccount). */
  readonly username: string;
  /** Its uid, when known. */
  readonly uid?: string;
  /** Its groups. */
  readonly groups: readonly string[];
  /** Further attributes. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request asks: a resource request (`resource` set) or a non-resource one (`path`). */
export interface RequestAttributes {
  readonly verb: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly name?: string;
  readonly namespace?: string;
  /** The path of a non-resource request (`/apis`, `/version`). */
  readonly path?: string;
}

/** An RBAC decision and, when allowed, by what binding (kube-apiserver's reason). */
export interface RbacDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}
interface Binding extends KubeObject {
  roleRef?: { kind?: string; name?: string };
  subjects?: Subject[];
}

const RBAC = 'rbac.authorization.k8s.io';
const DISCOVERY_PATHS = ['/api', '/api/*', '/apis', '/apis/*', '/version', '/version/', '/healthz', '/livez', '/readyz', '/openapi/*'];
const SELF_REVIEWS = ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews'];

/**
 * Whether `user` may do what `attrs` ask, by the RBAC objects in `objects`.
 *
 * @example
 * rbacDecision(objects, { username: 'alice', groups: [] }, { verb: 'list', group: '', resource: 'pods', namespace: 'a' });
 */
export function rbacDecision(objects: ObjectStore, user: SimUser, attrs: RequestAttributes): RbacDecision {
  if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
  if (user.groups.includes('system:authenticated') && bootstrapAllows(attrs)) return { allowed: true, reason: '' };
  const bindings: [Binding, string | undefined][] = objects.list(`${RBAC}/v1/clusterrolebindings`).map((b) => [b as Binding, undefined]);
  if (attrs.namespace !== undefined)
    for (const b of objects.list(`${RBAC}/v1/rolebindings`, attrs.namespace)) bindings.push([b as Binding, attrs.namespace]);
  for (const [binding, ns] of bindings) {
    const subject = binding.subjects?.find((s) => subjectMatches(s, user, ns));
    if (!subject) continue;
    const role = roleOf(objects, binding, ns);
    if (role?.rules?.some((rule) => ruleAllows(rule, attrs)))
      return { allowed: true, reason: `RBAC: allowed by ${describe(binding, subject, ns)}` };
  }
  return { allowed: false, reason: '' };
}

/** kube-apiserver's words for the binding that allowed a request. */
function describe(binding: Binding, subject: Subject, ns: string | undefined): string {
  const who = subject.kind === 'ServiceAccount' ? `${subject.name}/${subject.namespace ?? ns}` : subject.name;
  const name = ns === undefined ? `ClusterRoleBinding "${binding.metadata?.name}"` : `RoleBinding "${binding.metadata?.name}/${ns}"`;
  return `${name} of ${binding.roleRef?.kind} "${binding.roleRef?.name}" to ${subject.kind} "${who}"`;
}

/** The role a binding refers to (a RoleBinding's Role in its namespace, or a ClusterRole). */
function roleOf(objects: ObjectStore, binding: Binding, ns: string | undefined): { rules?: Rule[] } | undefined {
  const ref = binding.roleRef;
  if (!ref?.name) return undefined;
  if (ref.kind === 'ClusterRole') return objects.find(`${RBAC}/v1/clusterroles`, undefined, ref.name) as { rules?: Rule[] } | undefined;
  if (ref.kind === 'Role' && ns !== undefined) return objects.find(`${RBAC}/v1/roles`, ns, ref.name) as { rules?: Rule[] } | undefined;
  return undefined;
}

/** Whether a binding's subject is `user` (a ServiceAccount's namespace defaults to the binding's). */
function subjectMatches(s: Subject, user: SimUser, bindingNamespace: string | undefined): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.username;
    case 'Group':
      return s.name !== undefined && user.groups.includes(s.name);
    case 'ServiceAccount':
      return user.username === `system:serviceaccount:${s.namespace ?? bindingNamespace}:${s.name}`;
    default:
      return false;
  }
}

/** Whether one rule covers `attrs`. */
export function ruleAllows(rule: Rule, attrs: RequestAttributes): boolean {
  const verbs = rule.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(attrs.verb)) return false;
  if (attrs.resource === undefined) {
    const path = attrs.path ?? '';
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
  }
  const groups = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(attrs.group ?? '')) return false;
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const resources = rule.resources ?? [];
  const resourceMatch = resources.some(
    (r) => r === '*' || r === combined || (attrs.subresource !== undefined && r === `*/${attrs.subresource}`),
  );
  if (!resourceMatch) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attrs.name !== undefined && attrs.name !== '' && names.includes(attrs.name));
}

/** What kube-apiserver's bootstrap roles give every authenticated user: discovery and self-reviews. */
function bootstrapAllows(attrs: RequestAttributes): boolean {
  if (attrs.resource === undefined) return attrs.verb === 'get' && ruleAllows({ verbs: ['get'], nonResourceURLs: DISCOVERY_PATHS }, attrs);
  return (
    attrs.verb === 'create' &&
    (attrs.group === 'authorization.k8s.io' || attrs.group === 'authentication.k8s.io') &&
    SELF_REVIEWS.includes(attrs.resource)
  );
}

/** kube-apiserver's 403 message for a request RBAC denied, word for word. */
export function forbiddenMessage(user: SimUser, attrs: RequestAttributes, reason = ''): string {
  const suffix = reason ? `: ${reason}` : '';
  if (attrs.resource === undefined) return `forbidden: User "${user.username}" cannot ${attrs.verb} path "${attrs.path}"${suffix}`;
  const group = attrs.group ?? '';
  const qualified = group ? `${attrs.resource}.${group}` : attrs.resource;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace !== undefined ? ` in the namespace "${attrs.namespace}"` : ' at the cluster scope';
  const named = attrs.name ? ` "${attrs.name}"` : '';
  return `${qualified}${named} is forbidden: User "${user.username}" cannot ${attrs.verb} resource "${resource}" in API group "${group}"${where}${suffix}`;
}
