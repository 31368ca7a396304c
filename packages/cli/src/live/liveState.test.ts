import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { createLiveState, type LiveEvent } from './liveState.ts';
import { pod, testScheduler } from '@rxinformer/testing';

describe('createLiveState', () => {
  it('should record the last event per object, newest first, and count events by type', () => {
    const ts = testScheduler();
    ts.run(() => {
      const seen: LiveEvent[] = [];
      const state = createLiveState({ scheduler: ts, onEvent: (e) => seen.push(e) });
      const h = state.handler;
      ts.schedule(() => {
        void h.onAdd!(pod('a', { resourceVersion: '1', phase: 'Running' }), true, 'default/a');
        void h.onAdd!(pod('b', { resourceVersion: '2', phase: 'Running' }), true, 'default/b');
      }, 0);
      ts.schedule(() => {
        const b = pod('b', { resourceVersion: '3', phase: 'Failed' });
        void h.onUpdate!(pod('b', { resourceVersion: '2', phase: 'Running' }), b, 'default/b');
      }, 100);
      ts.schedule(() => {
        const a = pod('a', { resourceVersion: '1', phase: 'Running' });
        void h.onUpdate!(a, a, 'default/a');
      }, 150); // relist, unchanged
      ts.schedule(() => {
        void h.onDelete!({ key: 'default/a', lastKnown: pod('a', { resourceVersion: '1', phase: 'Running' }), finalStateUnknown: true });
      }, 200);
      let rows: string[] = [];
      ts.schedule(() => {
        rows = state.rows().map((e) => `${e.type} ${e.key} @${e.at}`);
      }, 300);
      ts.flush();
      expect(rows).toEqual(['DELETED? default/a @200', 'MODIFIED default/b @100']);
      expect(state.counts).toEqual({ ADDED: 2, MODIFIED: 1, DELETED: 0, 'DELETED?': 1, unchanged: 1 });
      expect(state.size).toBe(1);
      expect(seen.map((e) => [e.type, e.initial])).toEqual([
        ['ADDED', true],
        ['ADDED', true],
        ['MODIFIED', false],
        ['DELETED?', false],
      ]);
      expect(state.rate.total).toBe(4);
    });
  });

  it('should keep deleted objects for keepDeletedMs, then drop them, and count a re-add', () => {
    const ts = testScheduler();
    ts.run(() => {
      const state = createLiveState({ scheduler: ts, keepDeletedMs: 1000 });
      const h = state.handler;
      ts.schedule(() => {
        void h.onAdd!(pod('a', { resourceVersion: '1', phase: 'Running' }), false, 'default/a');
        void h.onDelete!({ key: 'default/a', lastKnown: pod('a', { resourceVersion: '1', phase: 'Running' }), finalStateUnknown: false });
      }, 0);
      const sizes: [number, number][] = [];
      ts.schedule(() => sizes.push([state.rows().length, state.size]), 999);
      ts.schedule(() => sizes.push([state.rows().length, state.size]), 1001);
      ts.schedule(() => {
        void h.onAdd!(pod('a', { resourceVersion: '5', phase: 'Running' }), false, 'default/a');
        sizes.push([state.rows().length, state.size]);
      }, 1100);
      ts.flush();
      expect(sizes).toEqual([
        [1, 0],
        [0, 0],
        [1, 1],
      ]);
    });
  });

  it('should stay correct across log compactions under churn of few keys', () => {
    // A clock that stands still: deletions are exactly "within keepDeletedMs", whatever the machine's speed.
    const state = createLiveState({ keepDeletedMs: 0, scheduler: new VirtualTimeScheduler() });
    for (let i = 0; i < 5000; i++) {
      const name = `p${i % 7}`;
      if (i % 3 === 2)
        void state.handler.onDelete!({
          key: `default/${name}`,
          lastKnown: pod(name, { resourceVersion: String(i), phase: 'Running' }),
          finalStateUnknown: false,
        });
      else void state.handler.onAdd!(pod(name, { resourceVersion: String(i), phase: 'Running' }), false, `default/${name}`);
    }
    const rows = state.rows();
    expect(new Set(rows.map((e) => e.key)).size).toBe(rows.length); // one row per object
    // The last event of each of the 7 keys, newest first; deletions within keepDeletedMs still shown.
    expect(rows.map((e) => `${e.type}@${e.object.metadata!.resourceVersion}`)).toEqual([
      'ADDED@4999',
      'ADDED@4998',
      'DELETED@4997',
      'ADDED@4996',
      'ADDED@4995',
      'DELETED@4994',
      'ADDED@4993',
    ]);
    expect(state.size).toBe(5);
  });

  it('should return at most limit rows, the most recently changed first, even within one millisecond', () => {
    const state = createLiveState();
    for (let i = 0; i < 10; i++)
      void state.handler.onAdd!(pod(`p${i}`, { resourceVersion: String(i), phase: 'Running' }), false, `default/p${i}`);
    void state.handler.onUpdate!(
      pod('p2', { resourceVersion: '2', phase: 'Running' }),
      pod('p2', { resourceVersion: '11', phase: 'Running' }),
      'default/p2',
    );
    expect(state.rows(3).map((e) => e.key)).toEqual(['default/p2', 'default/p9', 'default/p8']);
  });
});
