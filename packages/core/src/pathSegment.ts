/**
 * Names and namespaces as segments of a request path. `encodeURIComponent` keeps `.` and `..`, and
 * URL parsers (fetch, undici) then resolve them: `configmaps/.` becomes the collection and
 * `configmaps/..` the namespace, so a GET reads another resource and a DELETE deletes all of them.
 * Every path builder of rxinformer checks its parts here first, with kube-apiserver's rule
 * (apimachinery's path-segment check): not `.` or `..`, no `/` and no `%`.
 */
import { describeValue, RxInformerError } from './errors.ts';

/**
 * A name, namespace or other part of a request path that cannot be one path segment (`.`, `..`,
 * containing `/` or `%`, empty), or a path with a `.` or `..` segment. Thrown before anything is
 * sent: the request would have reached another resource.
 *
 * @example
 * try { await cms.delete({ namespace: 'a', name: '..' }); }
 * catch (e) { if (e instanceof InvalidPathSegmentError) console.warn(e.what, e.problems); }
 */
export class InvalidPathSegmentError extends RxInformerError {
  override readonly name: string = 'InvalidPathSegmentError';
  /** What the value was to be: `name`, `namespace`, `subresource`, `resource`, `path`… */
  readonly what: string;
  /** The value refused. */
  readonly value: unknown;
  /** Why, in the API server's words: `may not be '..'`, `may not contain '/'`. */
  readonly problems: readonly string[];

  constructor(what: string, value: unknown, problems: readonly string[]) {
    super('InvalidPathSegment', `invalid ${what} ${describeValue(value)}: ${problems.join('; ')}`);
    this.what = what;
    this.value = value;
    this.problems = problems;
  }
}

/**
 * Why `value` cannot be a name in a request path, in kube-apiserver's words (`may not be '.'`,
 * `may not contain '/'`, `may not contain '%'`); empty when it can. The empty string passes, as
 * the server's check has it: callers that need a value refuse it themselves.
 *
 * @example
 * pathSegmentProblems('..');  // ["may not be '..'"]
 * pathSegmentProblems('a%/b'); // ["may not contain '/'", "may not contain '%'"]
 */
export function pathSegmentProblems(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const problems: string[] = [];
  if (value.includes('/')) problems.push(`may not contain '/'`);
  if (value.includes('%')) problems.push(`may not contain '%'`);
  return problems;
}

/**
 * `value` encoded as one path segment, after checking it is one: a non-empty string that is not
 * `.` or `..` and holds no `/` or `%` (`pathSegmentProblems`). Throws `InvalidPathSegmentError`
 * naming `what` otherwise.
 *
 * @example
 * `/api/v1/namespaces/${pathSegment('namespace', ns)}/configmaps/${pathSegment('name', name)}`;
 * pathSegment('name', '..'); // throws InvalidPathSegmentError: invalid name "..": may not be '..'
 */
export function pathSegment(what: string, value: unknown): string {
  const error = pathSegmentError(what, value);
  if (error !== undefined) throw error;
  return encodeURIComponent(value as string);
}

/**
 * The `InvalidPathSegmentError` `pathSegment` would throw for `value`, or undefined when it is one
 * path segment: for callers that report a bad value rather than throw.
 *
 * @example
 * const error = pathSegmentError('name', ref.name);
 * if (error) report(error); else queue.add(key);
 */
export function pathSegmentError(what: string, value: unknown): InvalidPathSegmentError | undefined {
  if (typeof value !== 'string') return new InvalidPathSegmentError(what, value, ['must be a string']);
  if (value === '') return new InvalidPathSegmentError(what, value, ['may not be empty']);
  const problems = pathSegmentProblems(value);
  return problems.length > 0 ? new InvalidPathSegmentError(what, value, problems) : undefined;
}

/** A `.` or `..` segment, as a URL parser reads one: `%2e` is a dot to it (WHATWG URL). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Characters a URL parser drops or reads as a separator before it resolves dot segments: tab, CR
 * and LF anywhere, `\` as `/`, spaces and controls at the end. `.\t.` is `..` to it.
 */
function rereadChar(part: string): string | undefined {
  for (const c of part) if (c <= ' ' || c === '\x7f' || c === '\\') return c;
  return undefined;
}

/**
 * Throws `InvalidPathSegmentError` (`what`: `path`) when `path` has a segment a URL parser would
 * resolve — `.`, `..`, or their `%2e` spellings — or a character it would drop or read as a
 * separator (a tab, CR, LF, a backslash, a space or a control character: `.\t.` is `..` to it),
 * any of which would send the request elsewhere (a query after `?` is not looked at). For paths
 * given whole (an `ApiClient`'s requests); paths built with `pathSegment` have none.
 *
 * @example
 * checkRequestPath('/api/v1/namespaces/a/configmaps/..'); // throws
 * checkRequestPath('/api/v1/namespaces/a/configmaps/.\t.'); // throws: fetch would send `/api/v1/namespaces/a`
 */
export function checkRequestPath(path: string): void {
  if (typeof path !== 'string') throw new InvalidPathSegmentError('path', path, ['must be a string']);
  const end = path.search(/[?#]/);
  const part = end < 0 ? path : path.slice(0, end);
  const reread = rereadChar(part);
  if (reread !== undefined)
    throw new InvalidPathSegmentError('path', path, [
      `may not contain ${JSON.stringify(reread)}: a URL parser drops it or reads it as '/' (percent-encode it)`,
    ]);
  for (const segment of part.split('/'))
    if (DOT_SEGMENT.test(segment)) throw new InvalidPathSegmentError('path', path, [`a segment may not be '${segment}'`]);
}
