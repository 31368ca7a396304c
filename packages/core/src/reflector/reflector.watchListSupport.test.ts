/**
 * Refused streaming lists and what is remembered of them: the reflector pages where the server
 * refuses a streaming list, and so do the reflectors sharing its server's support record, without
 * asking, until the refusal is forgotten (after `recheckAfterMs`, or once the server streams one).
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, concat, of, throwError, type Observable } from 'rxjs';
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import { createInformerFactory } from '../informer/informerFactory.ts';
import { reflector } from './reflector.ts';
import { createStreamingListMemory } from './streamingListSupport.ts';
import type { ListerWatcher, ResourceDescriptor, Status, WatchEvent, WatchOptions } from '../types.ts';
import { page, testObject as obj } from '@rxinformer/testing';
import { data, ev, setup, statuses, type Run } from '../../test/reflectorHarness.ts';

/** kube-apiserver 1.36's answer to a streaming list with its WatchList gate off, as it sends it. */
const GATE_OFF: Status = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  reason: 'Invalid',
  details: {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        field: 'sendInitialEvents',
      },
    ],
  },
  code: 422,
};
/** An older server (1.19 to 1.26): it drops the sendInitialEvents it does not know, and refuses resourceVersionMatch on a watch. */
const OLDER: Status = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
  reason: 'Invalid',
  details: { causes: [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch' }] },
  code: 422,
};
const refusal = (status: Status) => throwError(() => new KubeApiError(status.code!, { status }));
const end = (rv: string) => ({ metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } });
const streamed = (sendInitialEvents?: boolean) => sendInitialEvents === true;
const errorsOf = (r: Run) => statuses(r).flatMap(([, s]) => (s.lastError ? [s.lastError] : []));

describe('reflector on refused streaming lists', () => {
  for (const [server, status] of [
    ['kube-apiserver with its WatchList gate off', GATE_OFF],
    ['an older server, on resourceVersionMatch', OLDER],
  ] as const) {
    it(`should page at once where ${server} refuses, and have the reflectors sharing its record page without asking until recheckAfterMs`, () => {
      setup(({ lw, start, flush, cold, ts }) => {
        const support = createStreamingListMemory({ recheckAfterMs: 60_000 }).of('v1');
        lw.scriptWatch(
          refusal(status),
          cold('-'),
          cold('-'),
          cold('a b', { a: ev('ADDED', obj('c', '30')), b: ev('BOOKMARK', end('31')) }),
        );
        lw.scriptList(of(page([obj('a', '1')], '2')), of(page([obj('b', '3')], '4')));
        const runs: Run[] = [];
        for (const at of [0, 1_000, 61_000]) ts.schedule(() => runs.push(start({ streamingListSupport: support }, 100_000)), at);
        flush();
        const [first, second, third] = runs;
        expect(data(first)).toEqual([[0, 'LIST@2:a']]);
        expect(errorsOf(first)[0]).toMatchObject({ code: 422, reason: 'Invalid' });
        expect(data(second)).toEqual([[1_000, 'LIST@4:b']]);
        expect(errorsOf(second)).toEqual([]); // it never asked
        expect(data(third)).toEqual([[61_001, 'LIST@31:c']]); // asked again once the refusal was a minute old
        expect(lw.watchCalls.map((c) => streamed(c.sendInitialEvents))).toEqual([true, false, false, true]);
        expect(lw.listCalls).toEqual([{ limit: 500 }, { limit: 500 }]);
        expect(support.refusedAt).toBeUndefined(); // the streamed list made it forget
      });
    });
  }

  it('should keep paging on its relists once refused, with a record of its own', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptWatch(refusal(GATE_OFF), cold('1s #', undefined, new KubeApiError(410)), cold('-'));
      lw.scriptList(of(page([obj('a', '1')], '2')), of(page([obj('b', '3')], '4')));
      const r = start({}, 100_000);
      flush();
      expect(data(r)).toEqual([
        [0, 'LIST@2:a'],
        [1000, 'LIST@4:b'],
      ]);
      expect(lw.watchCalls.map((c) => streamed(c.sendInitialEvents))).toEqual([true, false, false]);
    });
  });

  it('should not take a 400 about something else (a selector the server cannot parse) for a refusal: it backs off and streams again', () => {
    setup(({ lw, start, flush, cold }) => {
      const support = createStreamingListMemory().of('v1');
      const badSelector: Status = {
        kind: 'Status',
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'unable to parse requirement',
      };
      lw.scriptWatch(refusal(badSelector), cold('a b', { a: ev('ADDED', obj('a', '5')), b: ev('BOOKMARK', end('6')) }));
      const r = start({ streamingListSupport: support }, 10_000);
      flush();
      expect(data(r)).toEqual([[801, 'LIST@6:a']]);
      expect(errorsOf(r)[0]).toMatchObject({ code: 400 });
      expect(lw.watchCalls.map((c) => streamed(c.sendInitialEvents))).toEqual([true, true]);
      expect(lw.listCalls).toEqual([]);
      expect(support.refusedAt).toBeUndefined();
    });
  });
});

describe('createStreamingListMemory', () => {
  it('should keep one record per group version, and refuse a bad recheckAfterMs or record', () => {
    const memory = createStreamingListMemory({ recheckAfterMs: Infinity });
    expect(memory.of('v1')).toBe(memory.of('v1'));
    memory.of('v1').refused(5);
    expect([memory.of('v1').shouldStream(Number.MAX_SAFE_INTEGER), memory.of('apps/v1').shouldStream(6)]).toEqual([false, true]);
    for (const bad of [-1, Number.NaN, '5' as unknown as number])
      expect(() => createStreamingListMemory({ recheckAfterMs: bad })).toThrow(InvalidOptionsError);
    const lw: ListerWatcher = { list: () => NEVER, watch: () => NEVER };
    expect(() => reflector(lw, { streamingListSupport: {} as never })).toThrow(/streamingListSupport must have/);
    expect(() => createInformerFactory(() => lw as ListerWatcher<never>, { streamingLists: {} as never })).toThrow(InvalidOptionsError);
  });
});

describe('the informer factory and streaming lists', () => {
  const resource = (group: string, name: string): ResourceDescriptor => ({ group, version: 'v1', resource: name, namespaced: true });
  /** A server that refuses streaming lists for the core group only; each request recorded as `resource streamed|paged|list`. */
  const server = (calls: string[]) => (r: ResourceDescriptor) => {
    const lw: ListerWatcher = {
      watchList: true,
      list: () => {
        calls.push(`${r.resource} list`);
        return of(page([], '1'));
      },
      watch: (o: WatchOptions): Observable<WatchEvent> => {
        calls.push(`${r.resource} ${o.sendInitialEvents ? 'streamed' : 'watch'}`);
        if (!o.sendInitialEvents) return NEVER;
        return r.group === '' ? refusal(GATE_OFF) : concat(of(ev('BOOKMARK', end('1'))), NEVER);
      },
    };
    return lw as ListerWatcher<never>;
  };

  it('should remember a refusal per group version of its server, and share it with the factories given its memory', () => {
    const calls: string[] = [];
    const memory = createStreamingListMemory();
    const factory = createInformerFactory(server(calls), { streamingLists: memory });
    const other = createInformerFactory(server(calls), { streamingLists: memory });
    try {
      factory.informerFor(resource('', 'pods'));
      factory.informerFor(resource('', 'configmaps'));
      factory.informerFor(resource('apps', 'deployments'));
      other.informerFor(resource('', 'secrets'));
      factory.start();
      other.start();
      expect(calls).toEqual([
        'pods streamed', // refused: the core group pages from now on
        'pods list',
        'pods watch',
        'configmaps list',
        'configmaps watch',
        'deployments streamed', // another group version asks for itself
        'secrets list', // another factory over the same memory
        'secrets watch',
      ]);
      expect(factory.hasSynced() && other.hasSynced()).toBe(true);
    } finally {
      factory.shutdown();
      other.shutdown();
    }
  });

  it('should keep what each factory learns to itself by default', () => {
    const calls: string[] = [];
    const factories = [createInformerFactory(server(calls)), createInformerFactory(server(calls))];
    try {
      for (const f of factories) {
        f.informerFor(resource('', 'pods'));
        f.start();
      }
      expect(calls.filter((c) => c.endsWith('streamed'))).toEqual(['pods streamed', 'pods streamed']);
    } finally {
      for (const f of factories) f.shutdown();
    }
  });
});
