/**
 * LIST semantics: every resourceVersion rule (unset, "0", N, NotOlderThan, Exact), limit and
 * continue tokens served from one consistent snapshot, expiry with compaction (410), and the
 * 504 ResourceVersionTooLarge answer for a revision the server has not reached.
 */
import type { KubeObject, ListMeta } from '@rxinformer/core';
import type { ResourceInfo } from './resources.ts';
import { gvrKey } from './resources.ts';
import type { ObjectMatcher } from './selectors.ts';
import { ApiStatusError, errors, failure, type StatusCause } from './status.ts';
import { isFalse } from './requestUrl.ts';
import { CompactedError, type Storage } from './storage.ts';
import { checkCollectionKey } from './objectKeys.ts';

/** The list options of one request, as strings from the query. */
export interface ListQuery {
  namespace?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  sendInitialEvents?: string;
}

/** A page of results. */
export interface ListResult {
  items: KubeObject[];
  metadata: ListMeta;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/** Encodes a continue token the way the API server does (base64 of a small JSON). */
export function encodeContinue(rv: number, startKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${startKey}\u0000` })).toString('base64');
}

/** Decodes a continue token; throws a 400 for anything malformed. */
export function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw errors.badRequest(`continue key is not valid: illegal base64 data or JSON`);
  }
  const t = parsed as Partial<ContinueToken> | null;
  if (!t || t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string' || !Number.isInteger(t.rv)) {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (t.rv === 0 || t.rv < -1)
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return t as ContinueToken;
}

/**
 * Parses a resource version given by a client. Not a number: a list answers 400 BadRequest, a
 * watch 500 without a reason (the storage layer's error, unclassified), as the API server does.
 */
export function parseResourceVersion(rv: string, watch = false): number {
  if (!/^\d+$/.test(rv)) {
    const why = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`;
    throw watch ? errors.unclassified(why) : new ApiStatusError(failure(400, 'BadRequest', `invalid resource version: ${why}`));
  }
  return Number(rv);
}

const CONTINUE_TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * The `sendInitialEvents` option: undefined when absent, else its boolean value as the API server
 * converts it (only `0`, `f` and `false` are false).
 */
export function sendInitialEventsOf(q: ListQuery): boolean | undefined {
  const v = q.sendInitialEvents;
  if (v === undefined) return undefined;
  return !isFalse(v);
}

/**
 * Validates list or watch options: a 422 for the combinations the API forbids. A watch may carry
 * `resourceVersionMatch` (only NotOlderThan) exactly when it sets `sendInitialEvents`, true or false,
 * and `sendInitialEvents` only when the `WatchList` gate (`watchListGate`) is on.
 */
export function validateListQuery(res: ResourceInfo, q: ListQuery, watch: boolean, watchListGate = true): void {
  const causes: StatusCause[] = [];
  const forbid = (field: string, message: string) =>
    causes.push({ reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field });
  const notSupported = (value: string, supported: string) =>
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${value}": supported values: ${supported}`,
      field: 'resourceVersionMatch',
    });
  const match = q.resourceVersionMatch ?? '';
  const initialEvents = sendInitialEventsOf(q);
  if (watch) {
    if (initialEvents !== undefined && match !== 'NotOlderThan')
      forbid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (initialEvents !== undefined && !watchListGate)
      forbid('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    if (match !== '') {
      if (initialEvents === undefined)
        forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') notSupported(match, '"NotOlderThan"');
      if (q.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match !== '') {
      if (q.resourceVersion === undefined || q.resourceVersion === '')
        forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (q.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== 'NotOlderThan' && match !== 'Exact') notSupported(match, '"Exact", "NotOlderThan", ""');
      if (match === 'Exact' && q.resourceVersion === '0')
        forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (initialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length > 0) throw errors.invalid('ListOptions', '', causes, 'meta.k8s.io');
  void res;
}

/** Options of `waitForRevision`. */
export interface RevisionWait {
  /** How long to wait for a future revision before 504 (ms). */
  timeoutMs: number;
  /** Registers a cancel hook so a closing server does not wait. */
  track(cancel: () => void): () => void;
}

/** Waits until the storage reaches `rv`, or answers 504 ResourceVersionTooLarge. */
export async function waitForRevision(storage: Storage, rv: number, wait: RevisionWait): Promise<void> {
  if (storage.resourceVersion >= rv) return;
  const deadline = Date.now() + wait.timeoutMs;
  await new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const untrack = wait.track(() => {
      clearTimeout(timer);
      reject(errors.unavailable('the server is shutting down'));
    });
    const poll = () => {
      if (storage.resourceVersion >= rv) {
        untrack();
        resolve();
      } else if (Date.now() >= deadline) {
        untrack();
        reject(errors.tooLarge(rv, storage.resourceVersion));
      } else timer = setTimeout(poll, Math.min(25, Math.max(1, deadline - Date.now())));
    };
    poll();
  });
}

/** Where a page starts: the revision of its snapshot, the key it continues after, and its limit. */
interface PageStart {
  rv: number;
  startKey: string;
  limit: number | undefined;
}

/** The start of a page by the request's `continue`, `resourceVersion` and `resourceVersionMatch`. */
async function pageStart(storage: Storage, gvr: string, q: ListQuery, wait: RevisionWait): Promise<PageStart> {
  const rvParam = q.resourceVersion ?? '';
  const limit = q.limit !== undefined && q.limit > 0 ? q.limit : undefined;
  if (q.continue) {
    if (rvParam !== '' && rvParam !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(q.continue);
    if (token.rv === -1) return { rv: storage.resourceVersion, startKey: token.start, limit };
    if (token.rv < storage.listCompactedRevision(gvr)) {
      const err = errors.expired(CONTINUE_TOO_OLD);
      err.status.metadata = { continue: encodeInconsistent(token.start) };
      throw err;
    }
    return { rv: token.rv, startKey: token.start, limit };
  }
  if (rvParam === '') return { rv: storage.resourceVersion, startKey: '', limit };
  // served from the watch cache: limit ignored
  if (rvParam === '0') return { rv: storage.resourceVersion, startKey: '', limit: undefined };
  const rv = parseResourceVersion(rvParam);
  const exact = q.resourceVersionMatch === 'Exact' || (limit !== undefined && (q.resourceVersionMatch ?? '') === '');
  await waitForRevision(storage, rv, wait);
  if (!exact) return { rv: storage.resourceVersion, startKey: '', limit };
  if (rv < storage.listCompactedRevision(gvr)) throw errors.expired('The resourceVersion for the provided list is too old.');
  return { rv, startKey: '', limit };
}

/**
 * Serves one list request (one page). Selectors are applied after the snapshot is taken;
 * `remainingItemCount` is set only without selectors.
 */
export async function listPage(
  storage: Storage,
  res: ResourceInfo,
  q: ListQuery,
  matcher: ObjectMatcher,
  wait: RevisionWait,
): Promise<ListResult> {
  validateListQuery(res, q, false);
  const gvr = gvrKey(res);
  const { rv, startKey, limit } = await pageStart(storage, gvr, q, wait);
  checkCollectionKey(res, q.namespace); // after the query's checks, as the storage's
  let snapshot;
  try {
    snapshot = storage.snapshot(gvr, rv);
  } catch (e) {
    if (e instanceof CompactedError) throw errors.expired('The resourceVersion for the provided list is too old.');
    throw e;
  }
  const prefix = res.namespaced && q.namespace !== undefined ? `${q.namespace}/` : undefined;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (const key of snapshot.keys(startKey, prefix)) {
    if (limit !== undefined && items.length >= limit) {
      more = true;
      break;
    }
    lastKey = key;
    const obj = snapshot.get(key);
    if (obj && matcher.matches(obj)) items.push(obj);
  }
  const metadata: ListMeta = { resourceVersion: String(rv) };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinue(rv, lastKey);
    if (matcher.everything) metadata.remainingItemCount = snapshot.countFrom(`${lastKey}\u0000`, prefix);
  }
  return { items, metadata };
}

function encodeInconsistent(start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -1, start })).toString('base64');
}
