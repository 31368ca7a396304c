import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { describeDiff, diffViews, HandlerView, identities, isEqualView, objectKey } from './convergence.ts';

const pod = (ns: string, name: string, uid: string, rv: string): KubeObject => ({
  metadata: { namespace: ns, name, uid, resourceVersion: rv },
});

describe('objectKey', () => {
  it('should key namespaced objects namespace/name and cluster-scoped ones by name', () => {
    expect(objectKey(pod('a', 'p', 'u', '1'))).toBe('a/p');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
  });
});

describe('diffViews', () => {
  const server = identities([pod('a', 'p1', 'u1', '10'), pod('a', 'p2', 'u2', '11'), pod('b', 'p3', 'u3', '12')]);

  it('should find no difference between equal views', () => {
    const diff = diffViews(server, identities([pod('b', 'p3', 'u3', '12'), pod('a', 'p2', 'u2', '11'), pod('a', 'p1', 'u1', '10')]));
    expect(isEqualView(diff)).toBe(true);
    expect(describeDiff(diff)).toBe('equal');
  });

  it('should count missing, extra, recreated (other UID) and stale (other resourceVersion) objects', () => {
    const view = identities([pod('a', 'p1', 'u1', '9'), pod('a', 'p2', 'old-uid', '11'), pod('c', 'ghost', 'u9', '5')]);
    const diff = diffViews(server, view);
    expect(diff).toMatchObject({ missing: 1, extra: 1, wrongUid: 1, staleVersion: 1 });
    expect(isEqualView(diff)).toBe(false);
    expect(describeDiff(diff)).toContain('missing b/p3');
    expect(describeDiff(diff)).toContain('a/p2: uid old-uid instead of u2');
  });

  it('should see a view that differs only by one resourceVersion', () => {
    const view = identities([pod('a', 'p1', 'u1', '10'), pod('a', 'p2', 'u2', '11'), pod('b', 'p3', 'u3', '13')]);
    expect(diffViews(server, view).staleVersion).toBe(1);
  });

  it('should keep at most maxSamples samples', () => {
    expect(diffViews(server, new Map(), 2).samples).toHaveLength(2);
  });
});

describe('HandlerView', () => {
  it('should rebuild the state from adds, updates and deletes', () => {
    const view = new HandlerView('h');
    view.add(pod('a', 'p1', 'u1', '1'));
    view.add(pod('a', 'p2', 'u2', '2'));
    view.update(pod('a', 'p1', 'u1', '3'), pod('a', 'p1', 'u1', '1'));
    view.delete(pod('a', 'p2', 'u2', '2'));
    view.add(pod('a', 'p2', 'u2b', '4')); // recreated: delete then add
    expect(view.identities()).toEqual(identities([pod('a', 'p1', 'u1', '3'), pod('a', 'p2', 'u2b', '4')]));
    expect(view.events).toBe(5);
    expect(view.uidViolations).toBe(0);
  });

  it('should count an update whose old object has another UID as a violation', () => {
    const view = new HandlerView('h');
    view.add(pod('a', 'p1', 'u1', '1'));
    view.update(pod('a', 'p1', 'u2', '2'), pod('a', 'p1', 'u1', '1'));
    expect(view.uidViolations).toBe(1);
    expect(view.violationSamples[0]).toContain('a/p1: update from uid u1 to u2');
  });

  it('should judge by what the handler holds: an update of another incarnation, or an add over a live key, is a violation', () => {
    const view = new HandlerView('h');
    view.add(pod('a', 'p1', 'u1', '1'));
    // The library's old object agrees with the new one, but the handler never heard of u2's add.
    view.update(pod('a', 'p1', 'u2', '3'), pod('a', 'p1', 'u2', '2'));
    expect(view.uidViolations).toBe(1);
    // An add of another incarnation over a key still held: its delete never came.
    view.add(pod('a', 'p1', 'u3', '4'));
    expect(view.uidViolations).toBe(2);
    expect(view.violationSamples[1]).toContain('add of uid u3 over uid u2');
    // A delete then an add of the next incarnation is the right way.
    view.delete(pod('a', 'p1', 'u3', '5'));
    view.add(pod('a', 'p1', 'u4', '6'));
    expect(view.uidViolations).toBe(2);
  });

  it('should compare with its own previous object when the library passes no old object', () => {
    const view = new HandlerView('h');
    view.add(pod('a', 'p1', 'u1', '1'));
    view.update(pod('a', 'p1', 'u1', '2'));
    expect(view.uidViolations).toBe(0);
    view.update(pod('a', 'p1', 'u-new', '3'));
    expect(view.uidViolations).toBe(1);
  });
});
