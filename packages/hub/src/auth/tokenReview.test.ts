import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '@rxinformer/core';
import { tickingClock as virtualClock } from '../../test/tickingClock.ts';
import type { ReviewClient } from './reviewClient.ts';
import { tokenReviewAuthenticator } from './tokenReview.ts';

/**
 * The API server's side of TokenReview as a table the test edits (which tokens authenticate),
 * counting the reviews: the authenticator's cache and re-check period are under test here; the
 * reviews themselves run against both servers in test/authn.test.ts, and a revoked ServiceAccount's
 * connection closing on kube-apiserver in packages/cli/test/hubAuth.test.ts.
 */
function reviewServer() {
  const server = {
    users: new Map<string, string>([['t-alice', 'alice']]),
    reviews: 0,
    client: {
      request: async <T>(r: { body: unknown }): Promise<T> => {
        server.reviews++;
        const username = server.users.get((r.body as { spec: { token: string } }).spec.token);
        return { status: username ? { authenticated: true, user: { username, groups: [] } } : { authenticated: false } } as T;
      },
    } satisfies ReviewClient,
  };
  return server;
}

const upgrade = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, socket: {} }) as unknown as IncomingMessage;

describe('tokenReviewAuthenticator', () => {
  it('should ask for a re-check every recheckIntervalMs, and refuse a revoked token once its answer is older than successTtlMs', async () => {
    const { ts, advance } = virtualClock(100);
    const server = reviewServer();
    const authenticator = tokenReviewAuthenticator(server.client, { successTtlMs: 1000, recheckIntervalMs: 600, scheduler: ts });
    const rechecks: number[] = [];
    const sub = authenticator.changes$.subscribe(() => rechecks.push(ts.now()));
    expect(await authenticator.authenticate(upgrade('t-alice'))).toEqual({ user: { username: 'alice', groups: [] } });
    server.users.delete('t-alice'); // the ServiceAccount is deleted
    await advance(600);
    expect(rechecks).toEqual([600]);
    expect(await authenticator.authenticate(upgrade('t-alice'))).toMatchObject({ user: { username: 'alice' } }); // cached until 1000
    expect(server.reviews).toBe(1);
    await advance(1200);
    expect(rechecks).toEqual([600, 1200]);
    expect(await authenticator.authenticate(upgrade('t-alice'))).toMatchObject({ refused: 401 });
    expect(server.reviews).toBe(2);
    sub.unsubscribe();
  });

  it('should never re-check with recheckIntervalMs Infinity, and refuse a period of 0', async () => {
    const { ts, advance } = virtualClock(1000);
    const authenticator = tokenReviewAuthenticator(reviewServer().client, { recheckIntervalMs: Infinity, scheduler: ts });
    const rechecks: number[] = [];
    authenticator.changes$.subscribe(() => rechecks.push(ts.now()));
    await advance(100_000);
    expect(rechecks).toEqual([]);
    expect(() => tokenReviewAuthenticator(reviewServer().client, { recheckIntervalMs: 0 })).toThrow(InvalidOptionsError);
  });
});
