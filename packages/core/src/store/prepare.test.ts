import { describe, expect, it } from '@jest/globals';
import { NEVER, defer, from, lastValueFrom, toArray } from 'rxjs';
import { InvalidObjectError } from '../errors.ts';
import { createPrepare, prepareEvents } from './prepare.ts';
import { reflector } from '../reflector/reflector.ts';
import type { KubeObject, ListPage, ReflectorEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler } from '@rxinformer/testing';
import { ev } from '../../test/reflectorHarness.ts';

/** A transform that drops `managedFields`, counts its calls, and throws for objects named `bad`. */
function countingTransform(): { transform: (o: KubeObject) => KubeObject; calls: () => number } {
  let calls = 0;
  return {
    transform: (o) => {
      calls++;
      if (o.metadata?.name === 'bad') throw new Error('refused');
      delete o.metadata?.managedFields;
      return o;
    },
    calls: () => calls,
  };
}

describe('createPrepare', () => {
  it('should transform, then freeze deeply, sharing equal subtrees with the object prepared before', () => {
    const prepare = createPrepare<KubeObject & { spec?: unknown }>({ transform: countingTransform().transform });
    const spec = { containers: [{ name: 'c', image: 'web:1' }] };
    const a = prepare({ ...obj('a', '1'), spec: JSON.parse(JSON.stringify(spec)) });
    const raw = obj('b', '2');
    const b = prepare({ ...raw, metadata: { ...raw.metadata, managedFields: [{ manager: 'm' }] }, spec: JSON.parse(JSON.stringify(spec)) });
    expect(b.metadata?.managedFields).toBeUndefined();
    expect(Object.isFrozen(b) && Object.isFrozen(b.metadata)).toBe(true);
    expect(b.spec).toBe(a.spec);
  });

  it('should throw a typed error for a transform that throws and for what is not an object', () => {
    const prepare = createPrepare<KubeObject>({ transform: countingTransform().transform });
    expect(() => prepare(obj('bad', '1'))).toThrow(InvalidObjectError);
    expect(() => prepare(obj('bad', '1'))).toThrow(/transform failed: refused/);
    expect(() => prepare(null as unknown as KubeObject)).toThrow(InvalidObjectError);
  });

  it('should leave objects unfrozen with freeze: false', () => {
    const o = obj('a', '1');
    expect(Object.isFrozen(createPrepare<KubeObject>({ freeze: false })(o))).toBe(false);
  });
});

describe('the reflector with a prepare stage', () => {
  it('should prepare each list page as it arrives, leave out and report what cannot be prepared, and prepare watch events', () => {
    const ts = testScheduler();
    ts.run(({ cold, flush }) => {
      const { transform, calls } = countingTransform();
      const lw = fakeListerWatcher();
      const callsAt: number[] = [];
      lw.scriptList(
        cold<ListPage>('(p|)', { p: page([obj('a', '1'), obj('bad', '2')], '10', 'tok') }),
        defer(() => {
          callsAt.push(calls()); // asked for once the first page has arrived
          return cold<ListPage>('5ms (p|)', { p: page([obj('b', '3')], '10') });
        }),
      );
      lw.scriptWatch(cold('-a-d', { a: ev('ADDED', obj('c', '4')), d: ev('DELETED', obj('bad', '5')) }), NEVER);
      const events: ReflectorEvent<KubeObject>[] = [];
      const sub = reflector(lw, { useStreamingList: false, prepare: createPrepare({ transform }) }).subscribe((e) => events.push(e));
      ts.schedule(() => sub.unsubscribe(), 100); // the reflector never stops on its own
      flush();
      expect(callsAt).toEqual([2]); // the first page, before the second was asked for
      const [list, added, deleted] = events.filter((e) => e.type !== 'STATUS');
      expect(list).toMatchObject({ type: 'LIST', resourceVersion: '10', invalid: [expect.any(InvalidObjectError)] });
      expect(list.type === 'LIST' && list.items.map((o) => [o.metadata?.name, Object.isFrozen(o)])).toEqual([
        ['a', true],
        ['b', true],
      ]);
      expect(added).toEqual({ type: 'ADDED', object: obj('c', '4') });
      expect(added.type === 'ADDED' && Object.isFrozen(added.object)).toBe(true);
      expect(deleted).toEqual({ type: 'DELETED', object: obj('bad', '5'), invalid: expect.any(InvalidObjectError) });
    });
  });
});

describe('prepareEvents', () => {
  it('should prepare the events of a reflector run without a prepare stage', async () => {
    const { transform } = countingTransform();
    const events: ReflectorEvent<KubeObject>[] = [
      { type: 'LIST', items: [obj('a', '1'), obj('bad', '2')], resourceVersion: '2' },
      { type: 'MODIFIED', object: obj('bad', '3') },
      { type: 'BOOKMARK', resourceVersion: '4' },
    ];
    const [list, modified, bookmark] = await lastValueFrom(from(events).pipe(prepareEvents({ transform }), toArray()));
    expect(list).toMatchObject({ items: [obj('a', '1')], invalid: [expect.any(InvalidObjectError)] });
    expect(modified).toMatchObject({ type: 'MODIFIED', invalid: expect.any(InvalidObjectError) });
    expect(bookmark).toBe(events[2]);
  });
});
