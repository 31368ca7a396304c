/**
 * The factory speaks up instead of waiting forever: `waitForCacheSync` with a time limit or a
 * signal names every informer not synced and why, bad selectors throw at the call, and the
 * optional logger is told of status changes.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { NEVER, of, throwError, type Observable } from 'rxjs';
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import { CacheSyncTimeoutError } from './cacheSync.ts';
import { createInformerFactory, type InformerFactory, type InformerFactoryOptions } from './informerFactory.ts';
import type { InformerLogger } from './statusLogger.ts';
import type { ListerWatcherSource, ListPage, ResourceDescriptor } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, virtualClock, pagedInformers } from '@rxinformer/testing';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const nodes: ResourceDescriptor = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const deployments: ResourceDescriptor = { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true };
const forbidden = () => new KubeApiError(403, { message: 'pods is forbidden: User "dev" cannot list resource "pods"' });

/** Pods: every list forbidden. Nodes: the list never answers. Deployments: synced at once. */
const source: ListerWatcherSource = (resource) => {
  const lw = fakeListerWatcher();
  const lists: Record<string, () => Observable<ListPage>> = {
    pods: () => throwError(forbidden),
    nodes: () => NEVER,
    deployments: () => of(page([{ ...obj('d', '1'), apiVersion: 'apps/v1' }], '5')),
  };
  lw.scriptList(...Array.from({ length: 100 }, lists[resource.resource]));
  return lw as never;
};

/** The factories of the running test, shut down after it. */
const open = new Set<InformerFactory>();
afterEach(() => {
  for (const f of open) f.shutdown();
  open.clear();
});
// The sources here answer scripted lists: every informer pages (`useStreamingList: false`).
function make(src: ListerWatcherSource, options?: InformerFactoryOptions): InformerFactory {
  const factory = pagedInformers(createInformerFactory(src, options));
  open.add(factory);
  return factory;
}

/** A logger that records what it is told, as `level: message`. */
function recordingLogger(): InformerLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

describe('waitForCacheSync with a time limit', () => {
  it('should reject after timeoutMs of virtual time naming every informer not synced, its scope, phase and last error', async () => {
    const { ts, advance } = virtualClock(500);
    const factory = make(source, { scheduler: ts });
    factory.informerFor(pods, { namespace: 'team-a', labelSelector: 'app=web' });
    factory.informerFor(nodes);
    factory.informerFor(deployments);
    factory.start();
    let outcome: unknown;
    factory.waitForCacheSync({ timeoutMs: 5000 }).then(
      () => (outcome = 'synced'),
      (e: unknown) => (outcome = e),
    );
    await advance(4900);
    expect(ts.now()).toBeLessThan(5000);
    expect(outcome).toBeUndefined();
    await advance(6000);
    expect(outcome).toBeInstanceOf(CacheSyncTimeoutError);
    const error = outcome as CacheSyncTimeoutError;
    expect(error.reason).toBe('CacheSyncTimeout');
    expect(error.unsynced).toEqual([
      {
        resource: 'pods',
        scope: { namespace: 'team-a', labelSelector: 'app=web', fieldSelector: undefined },
        phase: 'backingOff',
        lastError: expect.any(KubeApiError),
      },
      { resource: 'nodes', scope: { namespace: undefined, labelSelector: undefined, fieldSelector: undefined }, phase: 'listing' },
    ]);
    expect(error.message).toBe(
      'caches not synced within 5000 ms; not synced: pods (namespace team-a, labelSelector "app=web") backingOff, last error: ' +
        'KubeApiError: pods is forbidden: User "dev" cannot list resource "pods"; nodes listing',
    );
  });

  it('should reject when the signal aborts, or at once when it already has, naming the informers not synced', async () => {
    const { ts } = virtualClock();
    const factory = make(source, { scheduler: ts });
    const informer = factory.informerFor(nodes);
    factory.start();
    const controller = new AbortController();
    const waiting = factory.waitForCacheSync({ signal: controller.signal });
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toMatchObject({ reason: 'CacheSyncAborted', cause: new Error('shutting down') });
    await expect(factory.waitForCacheSync({ signal: controller.signal })).rejects.toThrow(
      'waitForCacheSync was aborted: shutting down; not synced: nodes listing',
    );
    const again = new AbortController();
    const waiting2 = factory.waitForCacheSync({ signal: again.signal });
    informer.shutdown(); // on its own: it leaves the factory
    again.abort();
    await expect(waiting2).rejects.toThrow('waitForCacheSync was aborted; not synced: none left in the factory');
  });

  it('should resolve before the time limit when every informer syncs, and refuse bad options at the call', async () => {
    const { ts, advance } = virtualClock();
    const factory = make(source, { scheduler: ts });
    factory.informerFor(deployments);
    factory.start();
    const waiting = factory.waitForCacheSync({ timeoutMs: 1000 });
    await advance(500);
    await waiting;
    for (const bad of [{ timeoutMs: -1 }, { timeoutMs: Number.NaN }, { timeoutMs: '5s' }, { signal: {} }, null])
      expect(() => factory.waitForCacheSync(bad as never)).toThrow(InvalidOptionsError);
  });
});

describe('informerFor selectors', () => {
  it('should throw InvalidOptionsError at once for a selector the API server refuses, factory-wide or per informer', () => {
    const factory = make(source);
    expect(() => factory.informerFor(pods, { labelSelector: 'replicate in (a' })).toThrow(InvalidOptionsError);
    expect(() => factory.informerFor(pods, { labelSelector: 'replicate in (a' })).toThrow(
      `labelSelector: invalid label selector "replicate in (a": unable to parse requirement: found '', expected: ',' or ')' at position 15 (end)`,
    );
    expect(() => factory.informerFor(pods, { fieldSelector: 'status.phase' })).toThrow(
      'fieldSelector: invalid field selector "status.phase": "status.phase" has no operator (=, == or !=) at position 0',
    );
    expect(() => createInformerFactory(source, { fieldSelector: 'a=b=c' })).toThrow(InvalidOptionsError);
    expect(() =>
      factory.informerFor(pods, { labelSelector: 'app in (a, b),!canary', fieldSelector: 'spec.nodeName!=,a==b' }),
    ).not.toThrow();
  });
});

describe('the factory logger', () => {
  it('should tell of listing, each distinct error once, recovery and sync, for each informer', async () => {
    const { ts, advance } = virtualClock(100);
    let failures = 3;
    const flaky: ListerWatcherSource = () => {
      const lw = fakeListerWatcher();
      const list = () => (failures-- > 0 ? throwError(forbidden) : of(page([obj('p', '1')], '5')));
      lw.scriptList(...Array.from({ length: 5 }, () => list()));
      return lw as never;
    };
    const logger = recordingLogger();
    const factory = make(flaky, { scheduler: ts, logger });
    factory.informerFor(pods, { namespace: 'default' });
    factory.start();
    await advance(20_000);
    expect(factory.hasSynced()).toBe(true);
    expect(logger.lines).toEqual([
      'info: informer pods (namespace default): listing',
      expect.stringMatching(/^error: informer pods \(namespace default\): backing off \d+ ms after KubeApiError: pods is forbidden/),
      'info: informer pods (namespace default): recovered',
      'info: informer pods (namespace default): synced',
    ]);
  });

  it('should refuse a logger that is not an object of functions', () => {
    expect(() => createInformerFactory(source, { logger: (() => {}) as never })).toThrow(InvalidOptionsError);
    expect(() => createInformerFactory(source, { logger: { warn: 'loud' } as never })).toThrow(InvalidOptionsError);
  });
});
