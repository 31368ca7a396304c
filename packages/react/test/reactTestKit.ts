/**
 * The package's test kit: React DOM rendering in Node (a DOM from domino, `act` from React), a
 * ListerWatcher source the test drives by hand and that counts its requests, pod builders, and
 * render counters.
 */
import { act, createElement, Profiler, type ReactElement, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { createWindow } from 'domino';
import { Observable, of, Subject } from 'rxjs';
import {
  WATCH_OPENED,
  type KubeObject,
  type ListerWatcherSource,
  type ResourceDescriptor,
  type WatchEvent,
  type WatchItem,
  type WatchOptions,
} from '@rxinformer/core';
import { settle } from '@rxinformer/testing';

/** Gives Node the DOM React DOM renders into (domino), and tells React that tests drive it with `act`. */
export function installDom(): void {
  const global = globalThis as Record<string, unknown>;
  if (global.document !== undefined) return;
  const window = createWindow('<!doctype html><html><head></head><body></body></html>', 'http://localhost/') as unknown as Record<
    string,
    unknown
  >;
  global.window = window;
  global.document = window.document;
  global.IS_REACT_ACT_ENVIRONMENT = true;
}

/** A pod as the tests use it. */
export interface Pod extends KubeObject {
  status?: { phase?: string };
  spec?: { nodeName?: string };
}

/** core/v1 pods. */
export const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A pod in `namespace` with `phase` at resource version `rv`, and `labels`. */
export function pod(namespace: string, name: string, phase: string, rv: string, labels?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, uid: `uid-${namespace}-${name}`, resourceVersion: rv, ...(labels && { labels }) },
    status: { phase },
  };
}

/**
 * A ListerWatcher source the test drives: each list answers `items` at once, the watch is a
 * Subject. A streaming list (a watch with `sendInitialEvents`, the reflector's default) sends
 * `items` and the end bookmark first, and counts as a list and a watch: one request does both.
 */
export interface ManualSource {
  /** For a factory or `<InformerProvider source>`. */
  readonly source: ListerWatcherSource;
  /** What each list answers (change it to change the next relist). */
  items: Pod[];
  /** List requests so far. */
  lists(): number;
  /** Watch requests so far. */
  watches(): number;
  /** Watch streams opened and not yet closed. */
  openWatches(): number;
  /** Sends an event on every open watch. */
  emit(event: WatchEvent<Pod>): void;
}

/** A manual source whose lists answer `items` at resource version `rv`. */
export function manualSource(items: Pod[], rv = '10'): ManualSource {
  const open = new Set<Subject<WatchEvent<Pod>>>();
  let lists = 0;
  let watches = 0;
  const manual: ManualSource = {
    source: (() => ({
      watchList: true, // its watch serves streaming lists, as an HTTP ListerWatcher's
      list: () => {
        lists++;
        return of({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: manual.items });
      },
      watch: (options: WatchOptions) => {
        watches++;
        if (options.sendInitialEvents) lists++;
        return new Observable<WatchItem<Pod>>((subscriber) => {
          const events = new Subject<WatchEvent<Pod>>();
          open.add(events);
          subscriber.next(WATCH_OPENED); // open at once, as a server's answer would say
          if (options.sendInitialEvents) {
            for (const object of manual.items) subscriber.next({ type: 'ADDED', object });
            const end = { metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } } as Pod;
            subscriber.next({ type: 'BOOKMARK', object: end });
          }
          const subscription = events.subscribe(subscriber);
          return () => {
            open.delete(events);
            subscription.unsubscribe();
          };
        });
      },
    })) as unknown as ListerWatcherSource,
    items,
    lists: () => lists,
    watches: () => watches,
    openWatches: () => open.size,
    emit: (event) => {
      for (const w of open) w.next(event);
    },
  };
  return manual;
}

/** A React root rendered into a fresh element of the DOM. */
export interface Rendered {
  /** The element React renders into. */
  readonly container: { textContent: string | null; innerHTML: string; querySelectorAll(s: string): ArrayLike<unknown> };
  /** Errors React reported as uncaught (thrown while rendering, no error boundary). */
  readonly errors: unknown[];
  /** Commits so far (a `<Profiler>` around the tree). */
  commits(): number;
  /** Renders `element` in place of the tree. */
  rerender(element: ReactElement): Promise<void>;
  /** Unmounts the tree. */
  unmount(): Promise<void>;
}

/** Renders `element` (inside a commit-counting `<Profiler>`) with `act`. */
export async function render(element: ReactElement): Promise<Rendered> {
  installDom();
  const document = (globalThis as unknown as { document: { createElement(t: string): Rendered['container'] } }).document;
  const container = document.createElement('div');
  const errors: unknown[] = [];
  let commits = 0;
  const root: Root = createRoot(container as never, { onUncaughtError: (e) => errors.push(e) });
  const profiled = (tree: ReactNode) => createElement(Profiler, { id: 'test', onRender: () => commits++ }, tree);
  await act(async () => root.render(profiled(element)));
  return {
    container,
    errors,
    commits: () => commits,
    rerender: (next) => act(async () => root.render(profiled(next))),
    unmount: () => act(async () => root.unmount()),
  };
}

/** Lets the notifications in flight land (one macrotask in Node: the hooks' frame fallback), inside `act`. */
export function nextFrame(): Promise<void> {
  return act(() => settle());
}

/** Lets notifications land, inside `act`, until `check()` holds; throws after 5 s. */
export async function actUntil(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); await nextFrame()) {
    if (Date.now() > deadline) throw new Error(`not true in 5 s: ${check.toString()}`);
  }
}

/**
 * Runs `fn` with React told that no `act` is coming: updates render as in an app (a sync update
 * in a microtask, batched per task), so commits can be counted as an app makes them.
 */
export async function outsideAct(fn: () => Promise<void>): Promise<void> {
  const global = globalThis as Record<string, unknown>;
  global.IS_REACT_ACT_ENVIRONMENT = false;
  try {
    await fn();
  } finally {
    global.IS_REACT_ACT_ENVIRONMENT = true;
  }
}

/** Counts the renders of components, by name. */
export function renderCounter(): { count(name: string): number; counted(name: string): void } {
  const counts = new Map<string, number>();
  return {
    count: (name) => counts.get(name) ?? 0,
    counted: (name) => void counts.set(name, (counts.get(name) ?? 0) + 1),
  };
}
