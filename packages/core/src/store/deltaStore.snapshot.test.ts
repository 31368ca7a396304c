/**
 * The delta store over a restored snapshot: a `LIST` marked `restored` fills the store unsynced and
 * flags its adds; the server's first answer syncs it; a relist over it delivers only differences.
 */
import { describe, expect, it } from '@jest/globals';
import { preparedReducer, summary, type Applied } from '../../test/preparedReducer.ts';
import { initialDeltaState } from './deltaStore.ts';
import type { Delta, KubeObject, ReflectorEvent } from '../types.ts';

const obj = (name: string, uid: string, rv: string): KubeObject => ({ metadata: { namespace: 'ns', name, uid, resourceVersion: rv } });

function run(events: ReflectorEvent[]): { state: Applied<KubeObject>; steps: (readonly Delta[])[] } {
  const reducer = preparedReducer();
  let state: Applied<KubeObject> = { ...initialDeltaState(), deltas: [], errors: [] };
  const steps: (readonly Delta[])[] = [];
  for (const e of events) {
    state = reducer(state, e);
    steps.push(state.deltas);
  }
  return { state, steps };
}

const restored: ReflectorEvent = {
  type: 'LIST',
  items: [obj('a', 'ua', '1'), obj('b', 'ub', '2'), obj('c', 'uc', '3')],
  resourceVersion: '3',
  restored: true,
};

describe('applyEvent over a restored snapshot', () => {
  it('should hold the snapshot unsynced, its adds flagged fromSnapshot and in the initial list', () => {
    const { state, steps } = run([restored]);
    expect(state).toMatchObject({ synced: false, restored: true, resourceVersion: '3' });
    expect(state.store.size).toBe(3);
    expect(steps[0].map((d) => d.type === 'Added' && d.isInInitialList && d.fromSnapshot)).toEqual([true, true, true]);
  });

  it('should be synced by the first watch event, or by a bookmark, after it', () => {
    const event = run([restored, { type: 'MODIFIED', object: obj('a', 'ua', '4') }]);
    expect(event.state).toMatchObject({ synced: true, restored: false, resourceVersion: '4' });
    expect(summary(event.steps[1])).toEqual(['Updated:ns/a']);
    const bookmark = run([restored, { type: 'BOOKMARK', resourceVersion: '9' }]);
    expect(bookmark.state).toMatchObject({ synced: true, restored: false, resourceVersion: '9' });
    expect(bookmark.steps[1]).toEqual([]);
  });

  it('should deliver only the differences when a list replaces it: no Replaced for what the snapshot had right', () => {
    const { state, steps } = run([
      restored,
      // a unchanged, b changed, c gone, d new
      { type: 'LIST', items: [obj('a', 'ua', '1'), obj('b', 'ub', '7'), obj('d', 'ud', '8')], resourceVersion: '9' },
    ]);
    expect(summary(steps[1])).toEqual(['Deleted:ns/c:tombstone', 'Updated:ns/b', 'Added:ns/d']);
    const added = steps[1][2];
    // Still this cache's initial list, but from the server, not the snapshot.
    expect(added).toMatchObject({ type: 'Added', isInInitialList: true });
    expect(added.type === 'Added' && added.fromSnapshot).toBeFalsy();
    expect(state).toMatchObject({ synced: true, restored: false, resourceVersion: '9' });
  });

  it('should give Replaced again for a relist after it synced', () => {
    const { steps } = run([
      restored,
      { type: 'BOOKMARK', resourceVersion: '4' },
      { type: 'LIST', items: [obj('a', 'ua', '1')], resourceVersion: '5' },
    ]);
    expect(summary(steps[2]).sort()).toEqual(['Deleted:ns/b:tombstone', 'Deleted:ns/c:tombstone', 'Replaced:ns/a']);
  });

  it('should refuse a restored snapshot over a synced cache and change nothing', () => {
    const { state, steps } = run([{ type: 'LIST', items: [obj('x', 'ux', '1')], resourceVersion: '1' }, restored]);
    expect(steps[1]).toEqual([]);
    expect(state.errors).toHaveLength(1);
    expect(state.store.keys()).toEqual(['ns/x']);
    expect(state).toMatchObject({ synced: true, resourceVersion: '1' });
  });
});
