/**
 * Discovery answers: `/version`, `/api`, `/apis`, the per-group-version APIResourceLists, the
 * minimal OpenAPI v2 document kubectl needs to skip client-side validation, and the health
 * endpoints; `serveDiscovery` answers their paths. Plain `application/json` only: kubectl falls
 * back to legacy discovery.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo, ResourceRegistry } from './resources.ts';
import { groupVersion } from './resources.ts';
import { sendJson } from './responses.ts';
import { errors } from './status.ts';

/** The Kubernetes version the simulator claims. */
export interface ServerVersion {
  major: string;
  minor: string;
}

/** `/version`. */
export function versionInfo(v: ServerVersion): Record<string, string> {
  return {
    major: v.major,
    minor: v.minor,
    gitVersion: `v${v.major}.${v.minor}.0`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.24.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

const cidrs = [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }];

/** `/api`. */
export function apiVersions(): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: cidrs };
}

function group(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** `/apis`. */
export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  const groups = [...registry.groups()].filter(([g]) => g !== '').sort(([a], [b]) => a.localeCompare(b));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([g, vs]) => group(g, vs)) };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function apiGroup(registry: ResourceRegistry, name: string): Record<string, unknown> | undefined {
  const versions = registry.groups().get(name);
  if (!versions || name === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...group(name, versions) };
}

function entry(r: ResourceInfo): Record<string, unknown> {
  return {
    name: r.resource,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length > 0 ? { categories: r.categories } : {}),
    storageVersionHash: Buffer.from(`${groupVersion(r)}/${r.kind}`)
      .toString('base64')
      .slice(0, 11),
  };
}

/** `/api/v1` or `/apis/{group}/{version}`, or undefined when not served. */
export function apiResourceList(registry: ResourceRegistry, groupName: string, version: string): Record<string, unknown> | undefined {
  const rs = registry.all().filter((r) => r.group === groupName && r.version === version);
  if (rs.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const r of rs.sort((a, b) => a.resource.localeCompare(b.resource))) {
    resources.push(entry(r));
    for (const sub of r.subresources) {
      // a ServiceAccount's token is a TokenRequest, only created
      const token =
        sub === 'token' ? { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] } : undefined;
      resources.push({
        name: `${r.resource}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(token ?? { kind: r.kind, verbs: ['get', 'patch', 'update'] }),
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupName ? `${groupName}/${version}` : version, resources };
}

/** The protobuf `Document{swagger:"2.0"}`: enough for kubectl to skip client-side validation. */
export const OPENAPI_V2_PROTOBUF = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);
/** Its content type (a dot, not `@`). */
export const OPENAPI_V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The JSON form, for clients that ask for JSON. */
export const OPENAPI_V2_JSON = {
  swagger: '2.0',
  info: { title: 'Kubernetes (rxinformer simulator)', version: 'v1.33.0' },
  paths: {},
  definitions: {},
};

/** Answers a discovery, OpenAPI or health path (405 for a method other than GET or HEAD, 404 for an unknown path). */
export function serveDiscovery(
  registry: ResourceRegistry,
  version: ServerVersion,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  method: string,
): void {
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/version') return sendJson(res, 200, versionInfo(version));
  if (p === '/healthz' || p === '/livez' || p === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (p === '/api') return sendJson(res, 200, apiVersions());
  if (p === '/apis') return sendJson(res, 200, apiGroupList(registry));
  if (p === '/openapi/v2') {
    if ((req.headers.accept ?? '').includes('protobuf')) {
      res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_TYPE, 'Content-Length': OPENAPI_V2_PROTOBUF.length });
      res.end(OPENAPI_V2_PROTOBUF);
      return;
    }
    return sendJson(res, 200, OPENAPI_V2_JSON);
  }
  const answer = groupDiscovery(
    registry,
    p.split('/').filter((s) => s),
  );
  if (answer) return sendJson(res, 200, answer);
  // outside the API's paths: the API server's plain-text not-found handler, not a Status
  if (!/^\/apis?\//.test(p)) return notFoundText(res);
  throw errors.unknownPath();
}

/** kube-apiserver's plain-text 404 (its not-found handler, for paths no API serves). */
export function notFoundText(res: ServerResponse): void {
  const text = '404 page not found\n';
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': text.length });
  res.end(text);
}

/** The answer of `/api/{version}`, `/apis/{group}` or `/apis/{group}/{version}`, undefined for anything else. */
function groupDiscovery(registry: ResourceRegistry, segs: string[]): Record<string, unknown> | undefined {
  if (segs[0] === 'api' && segs.length === 2) return apiResourceList(registry, '', segs[1]);
  if (segs[0] === 'apis' && segs.length === 2) return apiGroup(registry, segs[1]);
  if (segs[0] === 'apis' && segs.length === 3) return apiResourceList(registry, segs[1], segs[2]);
  return undefined;
}
