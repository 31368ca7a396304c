import { describe, expect, it } from '@jest/globals';
import { coalesce, PendingEvents } from './pendingEvents.ts';
import type { KubeObject, WatchEvent } from '../types.ts';

const ev = (type: WatchEvent['type'], name: string, rv: number): WatchEvent =>
  ({ type, object: { metadata: { namespace: 'ns', name, resourceVersion: String(rv) } } }) as WatchEvent;
const names = (events: WatchEvent[]) =>
  events.map((e) => `${e.type} ${(e.object as KubeObject).metadata?.name ?? ''}@${e.object.metadata?.resourceVersion}`);

describe('the events held for a congested stream', () => {
  it('should keep the latest version of each object in resource version order, deletes kept, one bookmark', () => {
    const held = new PendingEvents(() => 100);
    held.add(ev('ADDED', 'a', 1));
    held.add(ev('MODIFIED', 'b', 2));
    held.add(ev('MODIFIED', 'a', 3)); // a stays ADDED, with the newest object, and moves after b
    held.add(ev('BOOKMARK', '', 4));
    held.add(ev('DELETED', 'b', 5));
    held.add(ev('ADDED', 'b', 6)); // re-created: the deletion is kept before it
    held.add(ev('MODIFIED', 'b', 7));
    held.add(ev('BOOKMARK', '', 8));
    expect(held.takeCoalesced()).toBe(4);
    expect(held.takeCoalesced()).toBe(0);
    expect(held.bytes).toBe(400);
    expect(names(held.take())).toEqual(['ADDED a@3', 'DELETED b@5', 'ADDED b@7', 'BOOKMARK @8']);
    expect([held.size, held.bytes]).toEqual([0, 0]);
  });

  it('should send nothing of an object added and deleted while held, and keep the bookmark that ends the initial events in place', () => {
    const end = { type: 'BOOKMARK', object: { metadata: { resourceVersion: '2', annotations: { 'k8s.io/initial-events-end': 'true' } } } };
    // b new and gone: nothing; a (held by the client) deleted, re-created and deleted: its first deletion.
    const events = [end as WatchEvent, ev('ADDED', 'b', 3), ev('MODIFIED', 'b', 4), ev('DELETED', 'b', 5)];
    events.push(ev('DELETED', 'a', 6), ev('ADDED', 'a', 7), ev('DELETED', 'a', 8), ev('BOOKMARK', '', 9));
    expect(names(coalesce(events))).toEqual(['BOOKMARK @2', 'DELETED a@6', 'BOOKMARK @9']);
    expect(names(coalesce([ev('ADDED', 'a', 1)]))).toEqual(['ADDED a@1']);
  });
});
