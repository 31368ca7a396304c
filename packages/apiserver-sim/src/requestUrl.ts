/**
 * What a request's URL says: typed query parameters (400 for bad values), and the resource path
 * parser for `/api/v1/...` and `/apis/{g}/{v}/...` paths.
 */
import { errors } from './status.ts';

/** Reads typed query parameters, with 400 answers for bad values. */
export class Query {
  readonly params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.params = params;
  }

  /** A string parameter. */
  str(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  /**
   * A boolean parameter as the API server converts query parameters: absent, `0`, `f` and `false`
   * (any case) are false, anything else (`maybe` too) is true.
   */
  bool(name: string): boolean {
    const v = this.params.get(name);
    return v !== null && !isFalse(v);
  }

  /** A non-negative integer parameter (a 400 in strconv's words, as the API server answers, for anything else). */
  int(name: string): number | undefined {
    const v = this.params.get(name);
    if (v === null || v === '') return undefined;
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
      throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  }
}

/** The false values of a boolean query parameter. */
export const isFalse = (v: string): boolean => v === '0' || v.toLowerCase() === 'f' || v.toLowerCase() === 'false';

/** A parsed resource path. */
export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The legacy `/watch/` path prefix was used. */
  legacyWatch: boolean;
}

/**
 * The path and query of a request target, as kube-apiserver (Go's net/http) reads it: the path is
 * taken as sent, its `.` and `..` segments left alone (the server refuses them as names; WHATWG
 * URL parsing would resolve them and serve another resource), then percent-decoded whole, so
 * `%2F` separates segments. Throws a 400 for a target that does not decode.
 */
export function requestTarget(target: string): { path: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  const raw = q < 0 ? target : target.slice(0, q);
  let path: string | undefined;
  try {
    if (URL.canParse(target, 'http://localhost')) path = decodeURIComponent(raw);
  } catch {
    // a malformed escape: refused below
  }
  if (path === undefined) throw errors.badRequest(`the request target ${JSON.stringify(target)} is not a valid path`);
  return { path, query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}

/**
 * Parses `/api/v1/...` and `/apis/{g}/{v}/...` resource paths (decoded, as `requestTarget` gives
 * them). `isNamespaced(group, version, r)` disambiguates `namespaces/{ns}/{resource}` from
 * `namespaces/{name}/{subresource}`. Returns undefined for a path that names no resource.
 */
export function parseResourcePath(
  path: string,
  isNamespaced: (group: string, version: string, resource: string) => boolean,
): ResourcePath | undefined {
  const segs = path.split('/').filter((s) => s !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1];
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1];
    version = segs[2];
    rest = segs.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && isNamespaced(group, version, rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const out: ResourcePath = { group, version, resource: rest[0], legacyWatch };
  if (namespace !== undefined) out.namespace = namespace;
  if (rest[1] !== undefined) out.name = rest[1];
  if (rest[2] !== undefined) out.subresource = rest[2];
  return out;
}

/** A watch: the legacy `/watch/` path, or a GET of a collection with `watch=true` (a named GET ignores it). */
export function isWatch(route: ResourcePath, method: string, q: Query): boolean {
  return route.legacyWatch || (method === 'GET' && route.name === undefined && q.bool('watch'));
}
