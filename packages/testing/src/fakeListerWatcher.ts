/**
 * A scripted ListerWatcher for tests: each list or watch call takes the next scripted response
 * (an Observable, e.g. a `cold` marble) and records the options it was called with. When the
 * script runs out, calls get a stream that never emits, so a test sees exactly what it scripted.
 */
import { NEVER, type Observable } from 'rxjs';
import type { KubeObject, ListOptions, ListPage, ListerWatcher, WatchItem, WatchOptions } from '@rxinformer/core';

/** A `ListerWatcher` whose answers a test scripts in advance. */
export interface FakeListerWatcher<T extends KubeObject> extends ListerWatcher<T> {
  /** Options of every list call, in order. */
  listCalls: ListOptions[];
  /** Options of every watch call, in order. */
  watchCalls: WatchOptions[];
  /** Appends responses for the next list calls. */
  scriptList(...responses: Observable<ListPage<T>>[]): void;
  /** Appends responses for the next watch calls (with `WATCH_OPENED` where the watch opens, or without: it opens on its first event). */
  scriptWatch(...responses: Observable<WatchItem<T>>[]): void;
}

/** Options of `fakeListerWatcher`. */
export interface FakeListerWatcherOptions {
  /** Say that its watches serve streaming lists (`ListerWatcher.watchList`), so reflectors stream from it. Default false. */
  watchList?: boolean;
}

/**
 * A ListerWatcher with nothing scripted yet.
 *
 * @example
 * const lw = fakeListerWatcher<Pod>(); // a reflector over it lists in pages: script lw.scriptList(…)
 * const streaming = fakeListerWatcher<Pod>({ watchList: true }); // streams: script the watch's initial events
 */
export function fakeListerWatcher<T extends KubeObject = KubeObject>(options: FakeListerWatcherOptions = {}): FakeListerWatcher<T> {
  const lists: Observable<ListPage<T>>[] = [];
  const watches: Observable<WatchItem<T>>[] = [];
  const fake: FakeListerWatcher<T> = {
    listCalls: [],
    watchCalls: [],
    scriptList: (...r) => {
      lists.push(...r);
    },
    scriptWatch: (...r) => {
      watches.push(...r);
    },
    list(options) {
      fake.listCalls.push(options);
      return lists.shift() ?? NEVER;
    },
    watch(options) {
      fake.watchCalls.push(options);
      return watches.shift() ?? NEVER;
    },
    ...(options.watchList === true && { watchList: true }),
  };
  return fake;
}
