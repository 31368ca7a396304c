import { describe, expect, it } from '@jest/globals';
import { everyObjectFrozen, nested, nestedJson, nestedLeaf } from '../../test/nested.ts';
import { preparedReducer, summary, type Applied } from '../../test/preparedReducer.ts';
import { initialDeltaState } from './deltaStore.ts';
import { InvalidObjectError } from '../errors.ts';
import { objectOf, type Delta, type KubeObject, type ReflectorEvent } from '../types.ts';

// Objects the server accepts but that are hard to prepare: nested deeper than the call stack, or
// refused by the transform. A delete must delete whatever it carries.

const obj = (name: string, uid: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { namespace: 'ns', name, uid, resourceVersion: rv },
  ...extra,
});

function run(events: ReflectorEvent[], reducer = preparedReducer()): { state: Applied<KubeObject>; deltas: Delta[]; errors: Error[] } {
  let state: Applied<KubeObject> = { ...initialDeltaState(), deltas: [], errors: [] };
  const deltas: Delta[] = [];
  const errors: Error[] = [];
  for (const e of events) {
    state = reducer(state, e);
    deltas.push(...state.deltas);
    errors.push(...state.errors);
  }
  return { state, deltas, errors };
}

describe('preparedReducer with objects nested deeper than the call stack', () => {
  it('should list, add, update and delete objects nested 3,000 and 100,000 deep, frozen', () => {
    for (const depth of [3_000, 100_000]) {
      const deep = (name: string, rv: string, leaf: string) => obj(name, `uid-${name}`, rv, { spec: nested(depth, leaf) });
      const parsed = { ...obj('parsed', 'uid-parsed', '2'), spec: JSON.parse(nestedJson(depth, '"json"')) };
      const { state, deltas, errors } = run([
        { type: 'LIST', items: [deep('listed', '1', 'a'), parsed], resourceVersion: '2' },
        { type: 'ADDED', object: deep('added', '3', 'b') },
        { type: 'MODIFIED', object: deep('added', '4', 'c') },
        { type: 'MODIFIED', object: deep('listed', '5', 'a') }, // equal but for its resourceVersion
        { type: 'DELETED', object: deep('added', '6', 'c') },
        { type: 'DELETED', object: { ...parsed, metadata: { ...parsed.metadata, resourceVersion: '7' } } },
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
      expect(nestedLeaf((objectOf(deltas[3]) as { spec: unknown }).spec)).toBe('c');
      expect(deltas[3].type === 'Updated' && nestedLeaf((deltas[3].oldObject as { spec: unknown }).spec)).toBe('b');
      expect(deltas.every((d) => everyObjectFrozen(objectOf(d)))).toBe(true);
      expect(state.store.keys()).toEqual(['ns/listed']);
      expect(state.resourceVersion).toBe('7');
    }
  });
});

describe('preparedReducer deletes of objects that cannot be prepared', () => {
  const failing = () =>
    preparedReducer<KubeObject>({
      transform: (o) => {
        if (o.metadata?.resourceVersion === 'bad') throw new Error('refused');
        return o;
      },
    });

  it('should remove the key and deliver the last known object as a tombstone when the transform throws', () => {
    const { state, deltas, errors } = run(
      [
        { type: 'ADDED', object: obj('a', 'u1', '1', { spec: { v: 1 } }) },
        { type: 'ADDED', object: obj('b', 'u2', '2') },
        { type: 'DELETED', object: obj('a', 'u1', 'bad') },
      ],
      failing(),
    );
    expect(summary(deltas)).toEqual(['Added:ns/a', 'Added:ns/b', 'Deleted:ns/a:tombstone']);
    expect(objectOf(deltas[2])).toBe(objectOf(deltas[0])); // the stored object, as last known
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
        { type: 'ADDED', object: obj('a', 'u1', '1') },
        { type: 'DELETED', object: obj('unknown', 'u9', 'bad') },
        { type: 'DELETED', object: { metadata: { namespace: 'ns', resourceVersion: 'bad' } } },
        { type: 'DELETED', object: null as unknown as KubeObject },
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
        { type: 'ADDED', object: obj('a', 'u1', '1') },
        { type: 'MODIFIED', object: obj('a', 'u1', 'bad') },
        { type: 'ADDED', object: obj('b', 'u2', 'bad') },
      ],
      failing(),
    );
    expect(summary(deltas)).toEqual(['Added:ns/a']);
    expect(state.store.get('ns/a')?.metadata?.resourceVersion).toBe('1');
    expect(errors).toHaveLength(2);
  });
});
