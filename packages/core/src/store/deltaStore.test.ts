import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidObjectError } from '../errors.ts';
import { preparedReducer, summary, type Applied } from '../../test/preparedReducer.ts';
import { applyEvent, initialDeltaState } from './deltaStore.ts';
import { createPrepare } from './prepare.ts';
import { objectOf, type Delta, type KubeObject, type ReflectorEvent } from '../types.ts';

const obj = (name: string, uid: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { namespace: 'ns', name, uid, resourceVersion: rv, ...extra },
});

function run(events: ReflectorEvent[], reducer = preparedReducer()): { state: Applied<KubeObject>; deltas: Delta[] } {
  let state: Applied<KubeObject> = { ...initialDeltaState(), deltas: [], errors: [] };
  const deltas: Delta[] = [];
  for (const e of events) {
    state = reducer(state, e);
    deltas.push(...state.deltas);
  }
  return { state, deltas };
}

describe('applyEvent', () => {
  it('should flag the first list as the initial list and carry the new snapshot on every delta', () => {
    const { state, deltas } = run([{ type: 'LIST', items: [obj('a', 'u1', '1'), obj('b', 'u2', '2')], resourceVersion: '5' }]);
    expect(summary(deltas)).toEqual(['Added:ns/a', 'Added:ns/b']);
    expect(deltas.every((d) => d.type === 'Added' && d.isInInitialList && d.store === state.store)).toBe(true);
    expect(state).toMatchObject({ synced: true, resourceVersion: '5' });
    expect(Object.isFrozen(state.store.get('ns/a'))).toBe(true);
    expect(Object.isFrozen(state.store.get('ns/a')!.metadata)).toBe(true);
  });

  it('should turn a relist into tombstones, adds, updates and replaced, atomically', () => {
    const first = obj('same', 'u0', '1');
    const { deltas } = run([
      { type: 'LIST', items: [first, obj('gone', 'u1', '1'), obj('changed', 'u2', '1')], resourceVersion: '1' },
      { type: 'LIST', items: [obj('same', 'u0', '1'), obj('changed', 'u2', '7'), obj('new', 'u3', '8')], resourceVersion: '9' },
    ]);
    const relist = deltas.slice(3);
    expect(summary(relist)).toEqual(['Deleted:ns/gone:tombstone', 'Replaced:ns/same', 'Updated:ns/changed', 'Added:ns/new']);
    expect(relist.every((d) => d.store === relist[0].store && !(d.type === 'Added' && d.isInInitialList))).toBe(true);
    expect(objectOf(relist[0])?.metadata?.uid).toBe('u1');
    expect(objectOf(relist[1])).toBe(objectOf(deltas[0])); // the stored instance is kept
    expect(relist[2].type === 'Updated' && relist[2].oldObject.metadata?.resourceVersion).toBe('1');
  });

  it('should report a recreated object (new UID, same name) as a tombstone delete then an add, in a relist and in a watch', () => {
    const relisted = run([
      { type: 'LIST', items: [obj('a', 'u1', '1')], resourceVersion: '1' },
      { type: 'LIST', items: [obj('a', 'u2', '5')], resourceVersion: '5' },
    ]);
    expect(summary(relisted.deltas.slice(1))).toEqual(['Deleted:ns/a:tombstone', 'Added:ns/a']);
    const watched = run([
      { type: 'LIST', items: [obj('a', 'u1', '1')], resourceVersion: '1' },
      { type: 'MODIFIED', object: obj('a', 'u2', '5') },
    ]);
    expect(summary(watched.deltas.slice(1))).toEqual(['Deleted:ns/a:tombstone', 'Added:ns/a']); // its deletion was never seen
    expect(objectOf(watched.deltas[1])?.metadata?.uid).toBe('u1');
    expect(watched.state.store.get('ns/a')?.metadata?.uid).toBe('u2');
  });

  it('should apply watch events: add, update with the old object, delete, and ignore unknown deletes', () => {
    const { state, deltas } = run([
      { type: 'LIST', items: [], resourceVersion: '1' },
      { type: 'ADDED', object: obj('a', 'u1', '2') },
      { type: 'MODIFIED', object: obj('a', 'u1', '3') },
      { type: 'MODIFIED', object: obj('a', 'u1', '3') },
      { type: 'DELETED', object: obj('a', 'u1', '4') },
      { type: 'DELETED', object: obj('zz', 'u9', '5') },
      { type: 'BOOKMARK', resourceVersion: '6' },
    ]);
    expect(summary(deltas)).toEqual(['Added:ns/a', 'Updated:ns/a', 'Deleted:ns/a']);
    expect(deltas[1].type === 'Updated' && deltas[1].oldObject.metadata?.resourceVersion).toBe('2');
    expect(deltas[2]).toMatchObject({ deleted: { key: 'ns/a', finalStateUnknown: false } });
    expect(objectOf(deltas[2])?.metadata?.resourceVersion).toBe('4');
    expect(state.store.size).toBe(0);
    expect(state.resourceVersion).toBe('6');
  });

  it('should store the items of a list as prepared and report those the prepare stage left out', () => {
    const prepare = createPrepare<KubeObject>();
    const good = prepare(obj('a', 'u1', '1'));
    const invalid = new InvalidObjectError('transform failed: t', obj('bad', 'u2', '1'));
    const { state, errors } = applyEvent(initialDeltaState(), { type: 'LIST', items: [good], resourceVersion: '5', invalid: [invalid] });
    expect(state.store.get('ns/a')).toBe(good);
    expect(state.store.get('ns/bad')).toBeUndefined();
    expect(errors).toEqual([invalid]);
  });

  it('should run the transform before storing', () => {
    const reducer = preparedReducer({
      transform: (o: KubeObject) => {
        delete o.metadata?.managedFields;
        return o;
      },
    });
    const { state } = run([{ type: 'ADDED', object: obj('a', 'u', '1', { managedFields: [{ manager: 'kubectl' }] }) }], reducer);
    expect(state.store.get('ns/a')?.metadata).not.toHaveProperty('managedFields');
  });

  it('should skip bad objects with a typed error and keep the rest of a relist', () => {
    const options = {
      indexers: {
        bad: (o: KubeObject) => {
          if (o.metadata?.name === 'boom') throw new Error('no');
          return [];
        },
      },
    };
    const reducer = preparedReducer(options);
    let state: Applied<KubeObject> = { ...initialDeltaState(options), deltas: [], errors: [] };
    state = reducer(state, {
      type: 'LIST',
      items: [obj('a', 'u1', '1'), { metadata: {} } as KubeObject, obj('boom', 'u2', '1')],
      resourceVersion: '1',
    });
    expect(state.store.keys()).toEqual(['ns/a']);
    expect(state.errors.map((e) => e.name)).toEqual(['InvalidObjectError', 'IndexerError']);
    state = reducer(state, { type: 'ADDED', object: { metadata: { namespace: 'x' } } });
    expect(state.errors[0]).toBeInstanceOf(InvalidObjectError);
    expect(state.deltas).toEqual([]);
    expect(state.store.size).toBe(1);
    const failingTransform = preparedReducer<KubeObject>({
      transform: () => {
        throw new Error('t');
      },
    });
    expect(failingTransform(initialDeltaState(), { type: 'ADDED', object: obj('a', 'u', '1') }).errors[0].message).toMatch(
      /transform failed: t/,
    );
  });

  it('should store each object deeply frozen and equal to what arrived, sharing equal subtrees with the object before it', () => {
    const spec = { containers: [{ name: 'c', image: 'web:1', ports: [{ containerPort: 80 }] }] };
    const a = JSON.parse(JSON.stringify({ ...obj('a', 'u1', '1'), spec }));
    const b = JSON.parse(JSON.stringify({ ...obj('b', 'u2', '2'), spec }));
    const { state } = run([
      { type: 'LIST', items: [a], resourceVersion: '1' },
      { type: 'ADDED', object: b },
    ]);
    const storedA = state.store.get('ns/a') as KubeObject & { spec: typeof spec };
    const storedB = state.store.get('ns/b') as KubeObject & { spec: typeof spec };
    expect(storedB).toEqual({ ...obj('b', 'u2', '2'), spec });
    expect(storedB.spec).toBe(storedA.spec);
    expect(Object.isFrozen(storedB.spec.containers[0].ports[0])).toBe(true);
    expect(() => {
      (storedB.spec.containers[0] as { image: string }).image = 'x';
    }).toThrow(TypeError);
    expect(storedA).toEqual({ ...obj('a', 'u1', '1'), spec });
  });

  it('should store objects as they arrived, unfrozen and unshared, with freeze: false', () => {
    const spec = { containers: [{ name: 'c', image: 'web:1' }] };
    const a = JSON.parse(JSON.stringify({ ...obj('a', 'u1', '1'), spec }));
    const b = JSON.parse(JSON.stringify({ ...obj('b', 'u2', '2'), spec }));
    const { state } = run(
      [
        { type: 'LIST', items: [a], resourceVersion: '1' },
        { type: 'ADDED', object: b },
      ],
      preparedReducer({ freeze: false }),
    );
    expect(state.store.get('ns/a')).toBe(a);
    expect(state.store.get('ns/b')).toBe(b);
    expect(Object.isFrozen(b) || Object.isFrozen(b.spec)).toBe(false);
    expect(b.spec).not.toBe(a.spec);
  });

  it('should leave the state untouched by status events', () => {
    const s = initialDeltaState();
    const step = applyEvent(s, { type: 'STATUS', status: { phase: 'listing', relistCount: 0, hasSynced: false } });
    expect(step).toEqual({ state: s, deltas: [], errors: [] });
    expect(step.state).toBe(s);
  });

  it('should converge to the server state and be replayable from its deltas, for any history', () => {
    // A model server: each step creates, updates, deletes or recreates an object, or the client relists.
    type Step = { op: 'create' | 'update' | 'delete' | 'recreate' | 'relist'; name: string };
    const step = fc.record({
      op: fc.constantFrom('create', 'update', 'delete', 'recreate', 'relist'),
      name: fc.constantFrom('a', 'b', 'c', 'd'),
    }) as fc.Arbitrary<Step>;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.array(fc.boolean(), { maxLength: 80 }), (steps, delivered) => {
        let rv = 1;
        let uid = 0;
        const server = new Map<string, KubeObject>();
        const reducer = preparedReducer();
        let state = reducer(initialDeltaState(), { type: 'LIST', items: [], resourceVersion: '1' });
        const replay = new Map<string, KubeObject>();
        const apply = (e: ReflectorEvent) => {
          state = reducer(state, e);
          for (const d of state.deltas) {
            if (d.type === 'Deleted') {
              expect(replay.get(d.key)?.metadata?.uid).toBe(d.deleted.lastKnown?.metadata?.uid);
              replay.delete(d.key);
            } else if (d.type === 'Added') {
              expect(replay.has(d.key)).toBe(false);
              replay.set(d.key, d.object);
            } else {
              expect(replay.get(d.key)?.metadata?.uid).toBe(d.object.metadata?.uid);
              replay.set(d.key, d.object);
            }
          }
        };
        let watchUp = true; // once down, changes are only seen by the next relist
        steps.forEach((s, i) => {
          const key = `ns/${s.name}`;
          if (delivered[i] === false) watchUp = false;
          const current = server.get(key);
          const emit = (e: ReflectorEvent) => {
            if (watchUp) apply(e);
          };
          if (s.op === 'relist') {
            watchUp = true;
            apply({ type: 'LIST', items: [...server.values()], resourceVersion: String(rv) });
            return;
          }
          if (s.op === 'create' && !current) {
            const o = obj(s.name, `u${++uid}`, String(++rv));
            server.set(key, o);
            emit({ type: 'ADDED', object: o });
          }
          if (s.op === 'update' && current) {
            const o = obj(s.name, current.metadata!.uid!, String(++rv));
            server.set(key, o);
            emit({ type: 'MODIFIED', object: o });
          }
          if ((s.op === 'delete' || s.op === 'recreate') && current) {
            server.delete(key);
            emit({ type: 'DELETED', object: obj(s.name, current.metadata!.uid!, String(++rv)) });
          }
          if (s.op === 'recreate') {
            const o = obj(s.name, `u${++uid}`, String(++rv));
            server.set(key, o);
            emit({ type: 'ADDED', object: o });
          }
        });
        apply({ type: 'LIST', items: [...server.values()], resourceVersion: String(rv) });
        const view = (m: Iterable<readonly [string, KubeObject]>) =>
          new Map([...m].map(([k, o]) => [k, `${o.metadata?.uid}@${o.metadata?.resourceVersion}`]));
        expect(view([...state.store.keys()].map((k) => [k, state.store.get(k)!] as const))).toEqual(view(server));
        expect(view(replay)).toEqual(view(server));
      }),
      { numRuns: 300 },
    );
  });
});

describe('applyEvent deletes', () => {
  it('should turn a delete of another incarnation into a tombstone of the stored one', () => {
    const { deltas, state } = run([
      { type: 'ADDED', object: obj('a', 'u1', '1') },
      { type: 'DELETED', object: obj('a', 'u2', '3') },
    ]);
    expect(summary(deltas)).toEqual(['Added:ns/a', 'Deleted:ns/a:tombstone']);
    expect(objectOf(deltas[1])?.metadata?.uid).toBe('u1');
    expect(state.store.size).toBe(0);
  });
});
