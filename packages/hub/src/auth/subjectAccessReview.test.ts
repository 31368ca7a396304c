import { describe, expect, it } from '@jest/globals';
import { tickingClock as virtualClock } from '../../test/tickingClock.ts';
import type { AccessChange, AccessRequest, HubUser } from '../auth.ts';
import { ReviewFailedError, type ReviewClient } from './reviewClient.ts';
import { subjectAccessReviewAuthorizer } from './subjectAccessReview.ts';

const alice: HubUser = { username: 'alice', groups: ['system:authenticated'] };
const bob: HubUser = { username: 'bob', groups: ['system:authenticated'] };
const list = (namespace?: string): AccessRequest => ({
  verb: 'list',
  group: '',
  resource: 'configmaps',
  cluster: 'default',
  ...(namespace && { namespace }),
});

/**
 * The API server's side of SubjectAccessReview as a table the test edits (who may list in which
 * namespace), counting the reviews asked: the authorizer's cache and re-checks are under test here;
 * the reviews themselves run against both servers in test/auth.test.ts.
 */
function reviewServer() {
  const allowed = new Set<string>();
  const server = {
    allowed,
    reviews: 0,
    failing: false,
    client: {
      request: async <T>(r: { path: string; body: unknown }): Promise<T> => {
        server.reviews++;
        if (server.failing) throw new Error('connect ECONNREFUSED');
        const spec = (r.body as { spec: { user: string; resourceAttributes: { namespace?: string } } }).spec;
        const ok = allowed.has(`${spec.user}/${spec.resourceAttributes.namespace ?? '*'}`);
        return { status: { allowed: ok, ...(ok && { reason: 'RBAC: allowed by a test' }) } } as T;
      },
    } satisfies ReviewClient,
  };
  return server;
}

describe('subjectAccessReviewAuthorizer', () => {
  it('should cache an allow for allowTtlMs and a denial for denyTtlMs, then review again', async () => {
    const { ts, advance } = virtualClock(100);
    const server = reviewServer();
    server.allowed.add('alice/a');
    const authorizer = subjectAccessReviewAuthorizer(server.client, { allowTtlMs: 1000, denyTtlMs: 300, scheduler: ts });
    expect(await authorizer.authorize(alice, list('a'))).toEqual({ allowed: true, reason: 'RBAC: allowed by a test', cached: false });
    expect(await authorizer.authorize(alice, list('b'))).toEqual({ allowed: false, cached: false });
    expect(await authorizer.authorize(alice, list('a'))).toMatchObject({ allowed: true, cached: true });
    expect(await authorizer.authorize(alice, list('b'))).toMatchObject({ allowed: false, cached: true });
    expect(server.reviews).toBe(2);
    await advance(300);
    expect(await authorizer.authorize(alice, list('b'))).toMatchObject({ cached: false });
    expect(await authorizer.authorize(alice, list('a'))).toMatchObject({ cached: true });
    await advance(1000);
    expect(await authorizer.authorize(alice, list('a'))).toMatchObject({ cached: false });
    expect(server.reviews).toBe(4);
  });

  it('should name the users of expired decisions on changes$ at each re-check, so a withdrawal is seen then', async () => {
    const { ts, advance } = virtualClock(100);
    const server = reviewServer();
    server.allowed.add('alice/a').add('bob/a');
    const authorizer = subjectAccessReviewAuthorizer(server.client, {
      allowTtlMs: 1000,
      denyTtlMs: 1000,
      recheckIntervalMs: 500,
      scheduler: ts,
    });
    const changes: [number, AccessChange][] = [];
    const sub = authorizer.changes$.subscribe((c) => changes.push([ts.now(), c]));
    await authorizer.authorize(alice, list('a'));
    await advance(400);
    await authorizer.authorize(bob, list('a'));
    server.allowed.delete('alice/a'); // RBAC withdraws alice's access
    await advance(900);
    expect(changes).toEqual([]); // nothing expired yet: alice's decision holds until 1000
    expect(await authorizer.authorize(alice, list('a'))).toMatchObject({ allowed: true, cached: true });
    await advance(1000);
    expect(changes).toEqual([[1000, { users: ['alice'] }]]);
    expect(await authorizer.authorize(alice, list('a'))).toEqual({ allowed: false, cached: false });
    await advance(1500);
    expect(changes).toEqual([
      [1000, { users: ['alice'] }],
      [1500, { users: ['bob'] }],
    ]);
    sub.unsubscribe();
  });

  it('should drop the decisions an invalidation concerns and announce it at once', async () => {
    const { ts } = virtualClock(100);
    const server = reviewServer();
    server.allowed.add('alice/a').add('bob/a');
    const authorizer = subjectAccessReviewAuthorizer(server.client, { scheduler: ts });
    const changes: AccessChange[] = [];
    authorizer.changes$.subscribe((c) => changes.push(c));
    await authorizer.authorize(alice, list('a'));
    await authorizer.authorize(bob, list('a'));
    server.allowed.delete('alice/a');
    authorizer.invalidate({ users: ['alice'] });
    expect(changes).toEqual([{ users: ['alice'] }]);
    expect(await authorizer.authorize(alice, list('a'))).toEqual({ allowed: false, cached: false });
    expect(await authorizer.authorize(bob, list('a'))).toMatchObject({ allowed: true, cached: true });
  });

  it('should not cache a review that began before an invalidation', async () => {
    const server = reviewServer();
    server.allowed.add('alice/a');
    const authorizer = subjectAccessReviewAuthorizer(server.client);
    const pending = authorizer.authorize(alice, list('a')); // the review is under way
    server.allowed.delete('alice/a');
    authorizer.invalidate();
    expect(await pending).toMatchObject({ allowed: true });
    expect(await authorizer.authorize(alice, list('a'))).toEqual({ allowed: false, cached: false });
  });

  it('should send one review for concurrent requests of one decision, and keep the decisions of different users apart', async () => {
    const server = reviewServer();
    server.allowed.add('alice/a');
    const authorizer = subjectAccessReviewAuthorizer(server.client);
    const answers = await Promise.all([1, 2, 3].map(() => authorizer.authorize(alice, list('a'))));
    expect(answers.map((a) => a.allowed)).toEqual([true, true, true]);
    expect(await authorizer.authorize(bob, list('a'))).toMatchObject({ allowed: false });
    expect(await authorizer.authorize({ ...alice, groups: ['system:masters'] }, list('a'))).toMatchObject({ cached: false });
    expect(server.reviews).toBe(3);
  });

  it('should fail closed: a review that fails rejects with a ReviewFailedError and is not cached', async () => {
    const server = reviewServer();
    server.allowed.add('alice/a');
    server.failing = true;
    const authorizer = subjectAccessReviewAuthorizer(server.client);
    const error = await authorizer.authorize(alice, list('a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReviewFailedError);
    expect(error).toMatchObject({ reason: 'SubjectAccessReviewFailed', cause: expect.any(Error) });
    server.failing = false;
    expect(await authorizer.authorize(alice, list('a'))).toMatchObject({ allowed: true, cached: false });
  });

  it('should hold at most maxEntries decisions, dropping the least recently used', async () => {
    const server = reviewServer();
    const authorizer = subjectAccessReviewAuthorizer(server.client, { maxEntries: 2 });
    for (const ns of ['a', 'b', 'c']) await authorizer.authorize(alice, list(ns));
    expect(server.reviews).toBe(3);
    await authorizer.authorize(alice, list('c'));
    await authorizer.authorize(alice, list('b'));
    expect(server.reviews).toBe(3);
    await authorizer.authorize(alice, list('a'));
    expect(server.reviews).toBe(4);
  });

  it('should deny a cluster it has no client for, and review with the client of each cluster', async () => {
    const one = reviewServer();
    const two = reviewServer();
    two.allowed.add('alice/a');
    const authorizer = subjectAccessReviewAuthorizer({ one: one.client, two: two.client });
    expect(await authorizer.authorize(alice, { ...list('a'), cluster: 'two' })).toMatchObject({ allowed: true });
    expect(await authorizer.authorize(alice, { ...list('a'), cluster: 'one' })).toMatchObject({ allowed: false });
    expect(await authorizer.authorize(alice, { ...list('a'), cluster: 'three' })).toEqual({
      allowed: false,
      reason: 'no SubjectAccessReview client for cluster "three"',
      cached: false,
    });
    expect([one.reviews, two.reviews]).toEqual([1, 1]);
  });
});
