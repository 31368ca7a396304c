import { describe, expect, it } from '@jest/globals';
import { everyObjectFrozen, nested, nestedJson, nestedLeaf } from '../test/nested.ts';
import { createDeltaReducer, initialDeltaState, type DeltaStoreState } from './deltaStore.ts';
import { InvalidObjectError } from './errors.ts';
import type { Delta, KubeObject, ReflectorEvent } from './types.ts';

// Objects the server accepts but that are hard to prepare: nested deeper than the call stack, or
// refused by the transform. A delete must delete whatever it carries.

const obj = (name: string, uid: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { namespace: 'ns', name, uid, resourceVersion: rv },
  ...extra,
});

function run(
  events: ReflectorEvent[],
  reducer = createDeltaReducer(),
): { state: DeltaStoreState<KubeObject>; deltas: Delta[]; errors: Error[] } {
  let state = initialDeltaState();
  const deltas: Delta[] = [];
  const errors: Error[] = [];
  for (const e of events) {
    state = reducer(state, e);
    deltas.push(...state.deltas);
    errors.push(...state.errors);
  }
  return { state, deltas, errors };
}
const summary = (ds: readonly Delta[]) => ds.map((d) => `${d.type}:${d.key}${d.finalStateUnknown ? ':tombstone' : ''}`);

describe('createDeltaReducer with objects nested deeper than the call stack', () => {
  it('should list, add, update and delete objects nested 3,000 and 100,000 deep, frozen', () => {
    for (const depth of [3_000, 100_000]) {
      const deep = (name: string, rv: string, leaf: string) => obj(name, `uid-${name}`, rv, { spec: nested(depth, leaf) });
      const parsed = { ...obj('parsed', 'uid-parsed', '2'), spec: JSON.parse(nestedJson(depth, '"json"')) };
      const { state, deltas, errors } = run([
        { type: 'replace', items: [deep('listed', '1', 'a'), parsed], resourceVersion: '2' },
        { type: 'added', object: deep('added', '3', 'b') },
        { type: 'modified', object: deep('added', '4', 'c') },
        { type: 'modified', object: deep('listed', '5', 'a') }, // equal but for its resourceVersion
        { type: 'deleted', object: deep('added', '6', 'c') },
        { type: 'deleted', object: { ...parsed, metadata: { ...parsed.metadata, resourceVersion: '7' } } },
      ]);
      expect(errors).toEqual([]);
      expect(summary(deltas)).toEqual([
        'Added:ns/listed',
        'Added:ns/parsed',
        'Added:ns/added',
        'Updated:ns/added',
        'Updated:ns/listed',
        'Deleted:ns/added',
        'Deleted:ns/parsed',
      ]);
      expect(nestedLeaf((deltas[3].object as { spec: unknown }).spec)).toBe('c');
      expect(nestedLeaf((deltas[3].oldObject as { spec: unknown }).spec)).toBe('b');
      expect(deltas.every((d) => everyObjectFrozen(d.object))).toBe(true);
      expect(state.store.keys()).toEqual(['ns/listed']);
      expect(state.resourceVersion).toBe('7');
    }
  });
});

describe('createDeltaReducer deletes of objects that cannot be prepared', () => {
  const failing = () =>
    createDeltaReducer<KubeObject>({
      transform: (o) => {
        if (o.metadata?.resourceVersion === 'bad') throw new Error('refused');
        return o;
      },
    });

  it('should remove the key and deliver the last known object as a tombstone when the transform throws', () => {
    const { state, deltas, errors } = run(
      [
        { type: 'added', object: obj('a', 'u1', '1', { spec: { v: 1 } }) },
        { type: 'added', object: obj('b', 'u2', '2') },
        { type: 'deleted', object: obj('a', 'u1', 'bad') },
      ],
      failing(),
    );
    expect(summary(deltas)).toEqual(['Added:ns/a', 'Added:ns/b', 'Deleted:ns/a:tombstone']);
    expect(deltas[2].object).toBe(deltas[0].object); // the stored object, as last known
    expect(deltas[2].store).toBe(state.store);
    expect(state.store.keys()).toEqual(['ns/b']);
    expect(state.store.byIndex('namespace', 'ns').map((o) => o.metadata?.name)).toEqual(['b']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InvalidObjectError);
    expect(errors[0].message).toMatch(/transform failed: refused/);
    expect(state.resourceVersion).toBe('bad'); // the event's resourceVersion is applied like any other
  });

  it('should report, and change nothing, when the object cannot be prepared and is unknown or cannot be keyed', () => {
    const { state, deltas, errors } = run(
      [
        { type: 'added', object: obj('a', 'u1', '1') },
        { type: 'deleted', object: obj('unknown', 'u9', 'bad') },
        { type: 'deleted', object: { metadata: { namespace: 'ns', resourceVersion: 'bad' } } },
        { type: 'deleted', object: null as unknown as KubeObject },
      ],
      failing(),
    );
    expect(summary(deltas)).toEqual(['Added:ns/a']);
    expect(state.store.keys()).toEqual(['ns/a']);
    expect(errors.map((e) => e.name)).toEqual(['InvalidObjectError', 'InvalidObjectError', 'InvalidObjectError']);
  });

  it('should still skip an added or modified object that cannot be prepared, keeping the stored one', () => {
    const { state, deltas, errors } = run(
      [
        { type: 'added', object: obj('a', 'u1', '1') },
        { type: 'modified', object: obj('a', 'u1', 'bad') },
        { type: 'added', object: obj('b', 'u2', 'bad') },
      ],
      failing(),
    );
    expect(summary(deltas)).toEqual(['Added:ns/a']);
    expect(state.store.get('ns/a')?.metadata?.resourceVersion).toBe('1');
    expect(errors).toHaveLength(2);
  });
});
