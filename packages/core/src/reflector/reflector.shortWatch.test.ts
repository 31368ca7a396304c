import { describe, expect, it } from '@jest/globals';
import { NEVER, of } from 'rxjs';
import type { WatchEvent } from '../types.ts';
import { page, testObject as obj, PAGED } from '@rxinformer/testing';
import { ev, setup, statuses } from '../../test/reflectorHarness.ts';

/**
 * What makes a watch "closed at once", as client-go v0.36's reflector counts it (its "very short
 * watch": `handleAnyWatch` ends less than a second after the watch request with no event counted)
 * and as `maxEmptyWatches` counts it: ADDED, MODIFIED, DELETED, BOOKMARK and events of an unknown
 * type count; an object of another type than expected is skipped and does not. With
 * `maxEmptyWatches: 1` one such watch relists, as client-go does at each.
 */
describe('a watch closed at once (client-go’s very short watch)', () => {
  const events: Record<string, WatchEvent> = {
    a: ev('ADDED', obj('x', '2')),
    b: ev('BOOKMARK', { metadata: { resourceVersion: '3' } }),
    u: ev('WHAT' as never, obj('y', '4')),
    o: ev('ADDED', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', resourceVersion: '5' } }),
  };

  it.each([
    ['no event, ended 999 ms after the request', '999ms |', true],
    ['no event, ended 1 s after the request', '1000ms |', false],
    ['an event', 'a|', false],
    ['a bookmark only', 'b|', false],
    ['an event of an unknown type only', 'u|', false],
    ['an object of another type only', 'o|', true],
  ])('with %s (%s): relists %s under maxEmptyWatches 1', (_, watch, relists) => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')), of(page([], '9')));
      lw.scriptWatch(cold<WatchEvent>(watch, events), NEVER);
      const r = start({ ...PAGED, maxEmptyWatches: 1, expectedType: { apiVersion: 'v1', kind: 'Pod' } }, 10_000);
      flush();
      expect(lw.listCalls).toHaveLength(relists ? 2 : 1);
      expect(lw.watchCalls).toHaveLength(2); // the second from the relist, or from where the first ended
      expect(statuses(r).some(([, s]) => s.lastError?.name === 'WatchClosedError')).toBe(relists);
      r.sub.unsubscribe();
    });
  });

  it('should watch again after one or two such watches by default, and relist at the third in a row', () => {
    setup(({ lw, start, flush, cold }) => {
      lw.scriptList(of(page([], '1')), of(page([], '9')));
      const empty = () => cold<WatchEvent>('|');
      lw.scriptWatch(empty(), empty(), cold<WatchEvent>('b|', events), empty(), empty(), empty(), NEVER);
      const r = start(PAGED, 10_000);
      flush();
      // Two in a row, then the bookmark's watch (the count starts again), then three in a row: the relist.
      expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['1', '1', '1', '3', '3', '3', '9']);
      expect(lw.listCalls).toHaveLength(2);
      r.sub.unsubscribe();
    });
  });
});
