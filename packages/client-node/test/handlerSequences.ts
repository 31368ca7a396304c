/**
 * Holding rxinformer's handler calls to client-go's: both sides' calls in the client-go peer's line
 * format, turned into one sequence of events per key, and compared key by key. The sequences must be
 * the same, or differ only where a `DifferenceRule` below says how and why; the same rules, with the
 * same names, are listed in docs/concept-map.md ("Where rxinformer and client-go deliver different
 * events"), which handlerSequences.test.ts checks.
 */
import { metaNamespaceKeyFunc, type EventHandler, type KubeObject } from '@rxinformer/core';
import type { AddLine, DeleteLine, UpdateLine } from '@rxinformer/testing/servers';

/** One handler call, as the client-go peer prints it. */
export type HandlerCall = AddLine | UpdateLine | DeleteLine;

/** A handler call of one key, without the key: what is compared. */
export type KeyEvent =
  | { readonly event: 'add'; readonly uid: string; readonly rv: string; readonly initial: boolean }
  | { readonly event: 'update'; readonly uid: string; readonly rv: string; readonly oldUid: string; readonly oldRv: string }
  | { readonly event: 'delete'; readonly uid: string; readonly rv: string; readonly finalStateUnknown: boolean };

/** One side's calls, normalised. */
export interface KeySequences {
  /** Each key's events, in the order delivered, without re-deliveries. */
  readonly byKey: ReadonlyMap<string, readonly KeyEvent[]>;
  /**
   * Updates dropped because they re-delivered the object last delivered for their key (same UID
   * and resource version): resyncs, and relists that found an object unchanged. Both informers make
   * them, but when and how many is each one's own timing, so they are counted, not compared.
   */
  readonly redeliveries: number;
}

/** An event handler of rxinformer's that records its calls in the peer's line format. */
export function recordingHandler(calls: HandlerCall[]): EventHandler<KubeObject> {
  const id = (o: KubeObject) => ({ key: metaNamespaceKeyFunc(o), uid: o.metadata?.uid ?? '', rv: o.metadata?.resourceVersion ?? '' });
  return {
    onAdd: (obj, initial) => void calls.push({ event: 'add', ...id(obj), initial }),
    onUpdate: (old, obj) => void calls.push({ event: 'update', ...id(obj), oldUid: id(old).uid, oldRv: id(old).rv }),
    onDelete: ({ key, lastKnown, finalStateUnknown }) =>
      void calls.push({ event: 'delete', ...(lastKnown ? id(lastKnown) : { uid: '', rv: '' }), key, finalStateUnknown }),
  };
}

/** The cache a handler that applied `calls` holds, as `namespace/name=uid@rv` sorted (simHarness's `view`). */
export function viewOfCalls(calls: readonly HandlerCall[]): string[] {
  const cache = new Map<string, string>();
  for (const c of calls) {
    if (c.event === 'delete') cache.delete(c.key);
    else cache.set(c.key, `${c.uid}@${c.rv}`);
  }
  return [...cache].map(([key, at]) => `${key}=${at}`).sort();
}

/** Splits `calls` by key and drops the re-deliveries (see `KeySequences`). */
export function keySequences(calls: readonly HandlerCall[]): KeySequences {
  const byKey = new Map<string, KeyEvent[]>();
  const last = new Map<string, string>();
  let redeliveries = 0;
  for (const c of calls) {
    const at = `${c.uid}@${c.rv}`;
    if (c.event === 'update' && c.oldUid === c.uid && c.oldRv === c.rv && last.get(c.key) === at) {
      redeliveries++;
      continue;
    }
    const events = byKey.get(c.key) ?? [];
    byKey.set(c.key, events);
    events.push(keyEvent(c));
    if (c.event === 'delete') last.delete(c.key);
    else last.set(c.key, at);
  }
  return { byKey, redeliveries };
}

function keyEvent(c: HandlerCall): KeyEvent {
  if (c.event === 'add') return { event: 'add', uid: c.uid, rv: c.rv, initial: c.initial };
  if (c.event === 'update') return { event: 'update', uid: c.uid, rv: c.rv, oldUid: c.oldUid, oldRv: c.oldRv };
  return { event: 'delete', uid: c.uid, rv: c.rv, finalStateUnknown: c.finalStateUnknown };
}

/** An event as one line: `add uid@rv initial`, `update uid@rv <- uid@rv`, `delete uid@rv finalStateUnknown`. */
export function showEvent(e: KeyEvent): string {
  if (e.event === 'add') return `add ${e.uid}@${e.rv}${e.initial ? ' initial' : ''}`;
  if (e.event === 'update') return `update ${e.uid}@${e.rv} <- ${e.oldUid}@${e.oldRv}`;
  return `delete ${e.uid}@${e.rv}${e.finalStateUnknown ? ' finalStateUnknown' : ''}`;
}

/** A way rxinformer's events of a key may differ from client-go's, and why. */
export interface DifferenceRule {
  /** Its name, as docs/concept-map.md lists it. */
  readonly name: string;
  /** Why the two differ, and which is right. */
  readonly reason: string;
  /**
   * Given what is left of rxinformer's (`rx`) and client-go's (`go`) events of a key, where they
   * differ: how many events of each the rule accounts for, or undefined when it does not apply.
   */
  match(rx: readonly KeyEvent[], go: readonly KeyEvent[]): { readonly rx: number; readonly go: number } | undefined;
}

/** The differences allowed, each with its reason: the list in docs/concept-map.md. */
export const DIFFERENCE_RULES: readonly DifferenceRule[] = [
  {
    name: 'new-uid-in-relist',
    reason:
      'A relist finds a key whose object was deleted and created again unseen (a new UID). client-go ' +
      'hands the handler OnUpdate(old, new) across the two objects, since its Replaced delta is matched ' +
      'to the cache by key only; rxinformer delivers the old object deleted (finalStateUnknown: its ' +
      'deletion was not seen) and the new one added. rxinformer is right: they are two objects, and a ' +
      'handler keyed by UID or tracking ownership would otherwise miss a deletion.',
    match: (rx, go) => {
      const [deleted, added] = rx;
      const [updated] = go;
      if (deleted?.event !== 'delete' || !deleted.finalStateUnknown || added?.event !== 'add' || added.initial) return undefined;
      if (updated?.event !== 'update' || updated.oldUid === updated.uid) return undefined;
      const same = deleted.uid === updated.oldUid && deleted.rv === updated.oldRv && added.uid === updated.uid && added.rv === updated.rv;
      return same ? { rx: 2, go: 1 } : undefined;
    },
  },
  // rxinformer, re-watching after a watch closed at once, replays a key's changes one by one;
  // client-go, relisting, hands over one call from its cache's object to the list's.
  {
    name: 'very-short-watch',
    reason:
      'A watch closed within a second of its request with no event (a bookmark is one). client-go relists ' +
      'at every such close (after its backoff), and its handler hears one call per key from its cache to the ' +
      'list: OnUpdate(old, new), OnDelete(DeletedFinalStateUnknown), OnAdd, or nothing for an object created ' +
      'and deleted meanwhile. rxinformer watches again from its resourceVersion and relists only after ' +
      '`maxEmptyWatches` (3) such closes in a row: its handler hears each change the server replays, as it ' +
      'happened. Both are right and converge; `maxEmptyWatches: 1` makes rxinformer relist as client-go does.',
    match: (rx, go) => veryShortWatch(rx, go),
  },
];

/** A key's state: its object's `uid@rv`, or undefined when there is none. */
type KeyState = string | undefined;

const stateAfter = (e: KeyEvent): KeyState => (e.event === 'delete' ? undefined : `${e.uid}@${e.rv}`);

/** An event a watch delivers: no add of the initial list, no deletion of unknown final state. */
const watched = (e: KeyEvent) => (e.event === 'add' ? !e.initial : e.event === 'delete' ? !e.finalStateUnknown : true);

/**
 * Whether watch event `e` can follow state `s`: an add an absent key; an update the object it names
 * (uid and rv); a delete the object of its uid (a watch's DELETED carries the object as deleted, with
 * a newer resourceVersion than the one held).
 */
function follows(s: KeyState, e: KeyEvent): boolean {
  if (e.event === 'add') return s === undefined;
  if (e.event === 'update') return s === `${e.oldUid}@${e.oldRv}`;
  return s !== undefined && s.startsWith(`${e.uid}@`);
}

/** Where a call of client-go's relist takes a key, from its cache's object to the list's; undefined for a call no relist makes. */
function relistCall(g: KeyEvent): { from: KeyState; to: KeyState } | undefined {
  if (g.event === 'add') return g.initial ? undefined : { from: undefined, to: `${g.uid}@${g.rv}` };
  if (g.event === 'update') return { from: `${g.oldUid}@${g.oldRv}`, to: `${g.uid}@${g.rv}` };
  return g.finalStateUnknown ? { from: `${g.uid}@${g.rv}`, to: undefined } : undefined;
}

/**
 * The `very-short-watch` rule: the shortest run of rxinformer's watch events, each following the one
 * before, that takes the key where client-go's next call does (from the same object to the same
 * object), or that takes an absent key back to absent where client-go made no call.
 */
function veryShortWatch(rx: readonly KeyEvent[], go: readonly KeyEvent[]): { rx: number; go: number } | undefined {
  const call = go[0] === undefined ? undefined : relistCall(go[0]);
  let state: KeyState;
  for (let k = 0; k < rx.length; k++) {
    if (!watched(rx[k]) || (k > 0 && !follows(state, rx[k]))) return undefined;
    state = stateAfter(rx[k]);
    if (call && follows(call.from, rx[0]) && state === call.to) return { rx: k + 1, go: 1 };
    if (rx[0].event === 'add' && state === undefined) return { rx: k + 1, go: 0 };
  }
  return undefined;
}

/** A key whose sequences differ in a way no rule allows. */
export interface KeyDifference {
  readonly key: string;
  /** rxinformer's events of the key, and where the first one no rule explains is. */
  readonly rx: readonly KeyEvent[];
  readonly rxAt: number;
  /** client-go's, and where the first one no rule explains is. */
  readonly go: readonly KeyEvent[];
  readonly goAt: number;
}

/** What `compareSequences` found. */
export interface Comparison {
  /** Every key whose sequences differ in a way no rule allows. */
  readonly differences: readonly KeyDifference[];
  /** How often each rule was applied, by name. */
  readonly applied: Readonly<Record<string, number>>;
}

const sameEvent = (a: KeyEvent, b: KeyEvent) => showEvent(a) === showEvent(b);

/** Compares the two sides key by key, allowing only `rules`' differences. */
export function compareSequences(rx: KeySequences, go: KeySequences, rules: readonly DifferenceRule[] = DIFFERENCE_RULES): Comparison {
  const differences: KeyDifference[] = [];
  const applied: Record<string, number> = {};
  const keys = [...new Set([...rx.byKey.keys(), ...go.byKey.keys()])].sort();
  for (const key of keys) {
    const difference = compareKey(key, rx.byKey.get(key) ?? [], go.byKey.get(key) ?? [], rules, applied);
    if (difference) differences.push(difference);
  }
  return { differences, applied };
}

/** Walks one key's two sequences: equal events, or what a rule accounts for (counted in `applied`), up to the first neither explains. */
function compareKey(
  key: string,
  rx: readonly KeyEvent[],
  go: readonly KeyEvent[],
  rules: readonly DifferenceRule[],
  applied: Record<string, number>,
): KeyDifference | undefined {
  let i = 0;
  let j = 0;
  while (i < rx.length || j < go.length) {
    if (i < rx.length && j < go.length && sameEvent(rx[i], go[j])) {
      i += 1;
      j += 1;
      continue;
    }
    const taken = rules.map((r) => ({ rule: r, n: r.match(rx.slice(i), go.slice(j)) })).find((m) => m.n !== undefined);
    if (!taken) return { key, rx, rxAt: i, go, goAt: j };
    i += taken.n!.rx;
    j += taken.n!.go;
    applied[taken.rule.name] = (applied[taken.rule.name] ?? 0) + 1;
  }
  return undefined;
}

/** The differences as text, key by key ('' when none): for a failing test's message. */
export function showDifferences(differences: readonly KeyDifference[]): string {
  return differences
    .map((d) => {
      const side = (name: string, events: readonly KeyEvent[], at: number) =>
        [
          `  ${name}:`,
          ...events.map((e, n) => `    ${n === at ? '>' : ' '} ${showEvent(e)}`),
          ...(at === events.length ? ['    > (no more)'] : []),
        ].join('\n');
      return `${d.key} (">": the first event no rule explains):\n${side('rxinformer', d.rx, d.rxAt)}\n${side('client-go', d.go, d.goAt)}`;
    })
    .join('\n');
}
