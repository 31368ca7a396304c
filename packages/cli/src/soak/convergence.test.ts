import { describe, expect, it } from '@jest/globals';
import { describeDiff, diffViews, HandlerView, identities, isEqualView, objectKey } from './convergence.ts';
import { testObject } from '@rxinformer/testing';

describe('objectKey', () => {
  it('should key namespaced objects namespace/name and cluster-scoped ones by name', () => {
    expect(objectKey(testObject('p', '1', 'u', 'a'))).toBe('a/p');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
  });
});

describe('diffViews', () => {
  const server = identities([testObject('p1', '10', 'u1', 'a'), testObject('p2', '11', 'u2', 'a'), testObject('p3', '12', 'u3', 'b')]);

  it('should find no difference between equal views', () => {
    const diff = diffViews(
      server,
      identities([testObject('p3', '12', 'u3', 'b'), testObject('p2', '11', 'u2', 'a'), testObject('p1', '10', 'u1', 'a')]),
    );
    expect(isEqualView(diff)).toBe(true);
    expect(describeDiff(diff)).toBe('equal');
  });

  it('should count missing, extra, recreated (other UID) and stale (other resourceVersion) objects', () => {
    const view = identities([
      testObject('p1', '9', 'u1', 'a'),
      testObject('p2', '11', 'old-uid', 'a'),
      testObject('ghost', '5', 'u9', 'c'),
    ]);
    const diff = diffViews(server, view);
    expect(diff).toMatchObject({ missing: 1, extra: 1, wrongUid: 1, staleVersion: 1 });
    expect(isEqualView(diff)).toBe(false);
    expect(describeDiff(diff)).toContain('missing b/p3');
    expect(describeDiff(diff)).toContain('a/p2: uid old-uid instead of u2');
  });

  it('should see a view that differs only by one resourceVersion', () => {
    const view = identities([testObject('p1', '10', 'u1', 'a'), testObject('p2', '11', 'u2', 'a'), testObject('p3', '13', 'u3', 'b')]);
    expect(diffViews(server, view).staleVersion).toBe(1);
  });

  it('should keep at most maxSamples samples', () => {
    expect(diffViews(server, new Map(), 2).samples).toHaveLength(2);
  });
});

describe('HandlerView', () => {
  it('should rebuild the state from adds, updates and deletes', () => {
    const view = new HandlerView('h');
    view.add(testObject('p1', '1', 'u1', 'a'));
    view.add(testObject('p2', '2', 'u2', 'a'));
    view.update(testObject('p1', '3', 'u1', 'a'), testObject('p1', '1', 'u1', 'a'));
    view.delete(testObject('p2', '2', 'u2', 'a'));
    view.add(testObject('p2', '4', 'u2b', 'a')); // recreated: delete then add
    expect(view.identities()).toEqual(identities([testObject('p1', '3', 'u1', 'a'), testObject('p2', '4', 'u2b', 'a')]));
    expect(view.events).toBe(5);
    expect(view.uidViolations).toBe(0);
  });

  it('should count an update whose old object has another UID as a violation', () => {
    const view = new HandlerView('h');
    view.add(testObject('p1', '1', 'u1', 'a'));
    view.update(testObject('p1', '2', 'u2', 'a'), testObject('p1', '1', 'u1', 'a'));
    expect(view.uidViolations).toBe(1);
    expect(view.violationSamples[0]).toContain('a/p1: update from uid u1 to u2');
  });

  it('should judge by what the handler holds: an update of another incarnation, or an add over a live key, is a violation', () => {
    const view = new HandlerView('h');
    view.add(testObject('p1', '1', 'u1', 'a'));
    // The library's old object agrees with the new one, but the handler never heard of u2's add.
    view.update(testObject('p1', '3', 'u2', 'a'), testObject('p1', '2', 'u2', 'a'));
    expect(view.uidViolations).toBe(1);
    // An add of another incarnation over a key still held: its delete never came.
    view.add(testObject('p1', '4', 'u3', 'a'));
    expect(view.uidViolations).toBe(2);
    expect(view.violationSamples[1]).toContain('add of uid u3 over uid u2');
    // A delete then an add of the next incarnation is the right way.
    view.delete(testObject('p1', '5', 'u3', 'a'));
    view.add(testObject('p1', '6', 'u4', 'a'));
    expect(view.uidViolations).toBe(2);
  });

  it('should compare with its own previous object when the library passes no old object', () => {
    const view = new HandlerView('h');
    view.add(testObject('p1', '1', 'u1', 'a'));
    view.update(testObject('p1', '2', 'u1', 'a'));
    expect(view.uidViolations).toBe(0);
    view.update(testObject('p1', '3', 'u-new', 'a'));
    expect(view.uidViolations).toBe(1);
  });
});
