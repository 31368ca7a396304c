/**
 * Stalled-watch detection, the judgement: what the reflector makes of the watch's silence and of
 * the stall check's list (the transitions are `reflectorMachine.ts`'s, the timing `reflector.ts`'s).
 *
 * A watch silent for `stallCheck.afterMs` (no event, no bookmark: kube-apiserver sends a bookmark
 * about every minute) asks for a consistent one-object list beside it. The list's resourceVersion
 * is compared with the last one the watch delivered, as opaque strings: the list is a consistent
 * read, so any other value means the server's collection has moved on since (kube-apiserver's are
 * etcd revisions, shared by every resource, so "moved on" may be another resource's write: a
 * re-watch that costs one request, never a relist). The same value is a quiet collection; an event
 * during the check, or a check that fails, means nothing is wrong.
 */
import { WatchStalledError } from './reflectorErrors.ts';
import type { ReflectorInput, ReflectorState } from './reflectorModel.ts';
import type { KubeObject } from '../types.ts';

/** The watching state. */
type Watching<T extends KubeObject> = Extract<ReflectorState<T>, { phase: 'watching' }>;

/** What a stall input means: nothing now, a check to start, the watch kept, a stall, or (resuming) the snapshot current. */
export type StallVerdict<T extends KubeObject> =
  | { type: 'ignore' }
  | { type: 'check'; state: Watching<T> }
  | { type: 'watching'; state: Watching<T> }
  | { type: 'stalled'; error: WatchStalledError }
  | { type: 'current'; state: Watching<T> };

/**
 * The verdict on one stall input in `state`, with the check's silence `stallMs` (`false`: off).
 * `silent` starts a check unless one runs; the answer of a check no longer asked for (an event
 * came, or another watch runs) is ignored.
 *
 * While `resuming` a restored snapshot, the check runs as the resumed watch opens (see `opened`):
 * the server at the snapshot's resource version means nothing changed since, anywhere (`current`:
 * it may never send a bookmark past it); another one is the server having moved on, not a stall.
 * On kube-apiserver the check's consistent read also makes the watch cache catch up with etcd,
 * so the resumed watch's bookmark follows within its short timeout.
 */
export function stallVerdict<T extends KubeObject>(
  state: ReflectorState<T>,
  input: Extract<ReflectorInput<T>, { type: 'silent' | 'checked' | 'checkFailed' }>,
  stallMs: number | false,
  resuming = false,
): StallVerdict<T> {
  if (state.phase !== 'watching') return { type: 'ignore' };
  if (input.type === 'silent') {
    if (state.checking || stallMs === false) return { type: 'ignore' };
    return { type: 'check', state: { ...state, checking: true, silentMs: (state.silentMs ?? 0) + stallMs } };
  }
  if (!state.checking) return { type: 'ignore' };
  const kept = { type: 'watching' as const, state: { ...state, checking: false } };
  if (input.type === 'checkFailed') return kept;
  const serverAt = input.page?.metadata?.resourceVersion;
  if (resuming) return serverAt === state.rv ? { type: 'current', state: kept.state } : kept;
  if (typeof serverAt !== 'string' || serverAt === '' || serverAt === state.rv || stallMs === false) return kept;
  return { type: 'stalled', error: new WatchStalledError(state.silentMs ?? stallMs, state.rv, serverAt) };
}
