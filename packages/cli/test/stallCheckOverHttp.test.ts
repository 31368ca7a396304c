/**
 * The reflector's stall check over real HTTP, against the simulator and a real kube-apiserver: the
 * check lists one object only to learn the collection's resourceVersion, so the fetch ListerWatcher
 * must send that one request and not prefetch the next page, even when the server says there is one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSharedInformer, fetchListerWatcher } from '@rxinformer/core';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';

/** The check's silence: far below the first bookmark (about a minute) and the watch's timeout. */
const AFTER_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 20 ms until it holds or `ms` have passed; resolves to whether it held. */
async function waitFor(ok: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (ok()) return true;
  return ok();
}

describe.each(serverKinds())('the stall check over fetch against the %s server', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 5, bookmarkIntervalMs: 60_000 } });
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());

  // The list before the watch: paged (one page here) or streamed (a watch, no list request).
  it.each([
    ['a paged list', false, ['?limit=500']],
    ['a streaming list', true, []],
  ])('should send one request per check, with no prefetch of the next page, after %s', async (_, useStreamingList, listed) => {
    const ns = await server.namespace('stall-requests');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    // More than one object: the check's one-object page carries a continue token.
    for (let i = 0; i < 3; i++) await server.api.create(path, { metadata: { name: `cm-${i}` } });
    const options = server.fetchOptions();
    const lists: string[] = [];
    const counting = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.includes('watch=true')) lists.push(url.slice(options.baseUrl.length));
      return options.fetch(input, init);
    }) as typeof fetch;
    const informer = createSharedInformer(fetchListerWatcher({ ...options, fetch: counting, path }), {
      reflector: { minWatchTimeoutSeconds: 60, stallCheck: { afterMs: AFTER_MS }, useStreamingList },
    });
    informer.start();
    try {
      expect(await waitFor(() => informer.hasSynced(), 10_000)).toBe(true);
      const before = listed.map((query) => `${path}${query}`);
      expect(lists).toEqual(before);
      // The first check, about AFTER_MS into the quiet watch; then time for its answer and hand-over
      // (a prefetch would be on its way by then), well before the next check.
      expect(await waitFor(() => lists.length > before.length, 5 * AFTER_MS)).toBe(true);
      await sleep(AFTER_MS / 2);
      expect(lists).toEqual([...before, `${path}?limit=1`]);
    } finally {
      informer.stop();
    }
  });
});
