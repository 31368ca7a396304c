import { describe, expect, it } from '@jest/globals';
import { PendingEvents } from './pendingEvents.ts';
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
});
