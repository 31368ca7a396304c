/**
 * The package's test kit: Angular's TestBed in Node (a DOM from domino, the test components
 * compiled just in time), a ListerWatcher source the test drives by hand and that records the zone
 * each request was made in, and pod builders.
 */
import '@angular/compiler'; // JIT: TestBed compiles the test components at run time
import { NgZone, provideZonelessChangeDetection } from '@angular/core';
import { createWatch } from '@angular/core/primitives/signals';
import { TestBed } from '@angular/core/testing';
import { BrowserTestingModule, platformBrowserTesting } from '@angular/platform-browser/testing';
import { createWindow } from 'domino';
import { Observable, Subject, of } from 'rxjs';
import {
  WATCH_OPENED,
  type KubeObject,
  type ListerWatcherSource,
  type ResourceDescriptor,
  type WatchEvent,
  type WatchItem,
  type WatchOptions,
} from '@rxinformer/core';
import { injectInformer, type InformerRef } from '../src/injectInformer.ts';
import { provideInformers, type InformersConfig } from '../src/provideInformers.ts';

/** The DOM globals Angular's renderer and TestBed reach for. */
const DOM_GLOBALS = [
  'document',
  'Node',
  'Element',
  'HTMLElement',
  'Text',
  'Comment',
  'Event',
  'CustomEvent',
  'KeyboardEvent',
  'MouseEvent',
];

let initialized = false;

/** Gives Node a DOM (domino) and initializes TestBed's browser environment, once per test file. */
export function initTestBed(): void {
  if (initialized) return;
  initialized = true;
  const window = createWindow('<!doctype html><html><head></head><body></body></html>', 'http://localhost/') as unknown as Record<
    string,
    unknown
  >;
  const global = globalThis as Record<string, unknown>;
  for (const name of DOM_GLOBALS) if (!(name in global)) global[name] = window[name];
  TestBed.initTestEnvironment(BrowserTestingModule, platformBrowserTesting(), { teardown: { destroyAfterEach: true } });
}

/** A pod as the tests use it. */
export interface Pod extends KubeObject {
  status?: { phase?: string };
}

/** core/v1 pods. */
export const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A pod in `namespace` with `phase` at resource version `rv`. */
export function pod(namespace: string, name: string, phase: string, rv: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, uid: `uid-${namespace}-${name}`, resourceVersion: rv },
    status: { phase },
  };
}

/**
 * A ListerWatcher source the test drives: the list answers `items` at once, the watch is a Subject;
 * a streaming list (the reflector's default) sends `items` and the end bookmark at once, then goes
 * on as that Subject.
 */
export interface ManualSource {
  /** For `provideInformers({ source })`. */
  readonly source: ListerWatcherSource;
  /** One entry per list or watch request: which, and whether it was made inside Angular's zone. */
  readonly requests: { kind: 'list' | 'watch' | 'streaming list'; inAngularZone: boolean }[];
  /** Watch streams opened and not yet closed (unsubscribed). */
  openWatches(): number;
  /** Sends an event on every open watch. */
  emit(event: WatchEvent<Pod>): void;
}

/** A manual source whose list returns `items` at resource version `rv`. */
export function manualSource(items: Pod[], rv = '10'): ManualSource {
  const watches = new Set<Subject<WatchEvent<Pod>>>();
  const requests: ManualSource['requests'] = [];
  const record = (kind: ManualSource['requests'][number]['kind']) => requests.push({ kind, inAngularZone: NgZone.isInAngularZone() });
  const end = { metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } } as Pod;
  const source = (() => ({
    watchList: true, // its watch serves streaming lists, as an HTTP ListerWatcher's
    list: () => {
      record('list');
      return of({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items });
    },
    watch: (options: WatchOptions) => {
      record(options.sendInitialEvents ? 'streaming list' : 'watch');
      return new Observable<WatchItem<Pod>>((subscriber) => {
        subscriber.next(WATCH_OPENED); // open at once, as a watch whose answer's headers came
        const events = new Subject<WatchEvent<Pod>>();
        watches.add(events);
        if (options.sendInitialEvents) {
          for (const object of items) subscriber.next({ type: 'ADDED', object });
          subscriber.next({ type: 'BOOKMARK', object: end });
        }
        const subscription = events.subscribe(subscriber);
        return () => {
          watches.delete(events);
          subscription.unsubscribe();
        };
      });
    },
  })) as unknown as ListerWatcherSource;
  return {
    source,
    requests,
    openWatches: () => watches.size,
    emit: (event) => {
      for (const w of watches) w.next(event);
    },
  };
}

/** A zoneless TestBed app with informers over `manual`, and its pods informer. */
export function podsOver(manual: ManualSource, config: Omit<InformersConfig, 'source'> = {}): InformerRef<Pod> {
  TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection(), provideInformers({ ...config, source: manual.source })] });
  return TestBed.runInInjectionContext(() => injectInformer(podsResource));
}

/** A live reader of `read`: counts the notifications it gets (what schedules a render), and what it read. */
export interface Reader<R> {
  /** Notifications received (dirty marks) so far. */
  readonly notifications: number;
  /** The values read, first at creation, then on each `read()`. */
  readonly values: R[];
  /** Reads again (as a view does on its next render). */
  read(): void;
  /** Leaves the signal graph. */
  destroy(): void;
}

/** Reads `read` as a template does: a live consumer whose notifications are counted. */
export function reader<R>(read: () => R): Reader<R> {
  const values: R[] = [];
  let notifications = 0;
  const watch = createWatch(
    () => {
      values.push(read());
    },
    () => {
      notifications++;
    },
    false,
  );
  watch.notify();
  watch.run();
  notifications = 0;
  return {
    get notifications() {
      return notifications;
    },
    values,
    read: () => watch.run(),
    destroy: () => watch.destroy(),
  };
}

/** Polls `check` every 10 ms until it holds; throws after 5 s. */
export async function until(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > deadline) throw new Error(`not true in 5 s: ${check.toString()}`);
  }
}
