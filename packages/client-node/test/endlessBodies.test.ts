/**
 * Every body the clients read whole is bounded: a server that answers a Lease, a discovery or any
 * JSON request with a body that never ends (over real HTTP) costs a typed `ResponseTooLargeError`
 * once the body passes its limit, never memory in proportion to what the server sends. The error's
 * figures show how much was read.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { KubeApiError, ResponseTooLargeError } from '@rxinformer/core';
import { DEFAULT_MAX_LIST_BODY_BYTES, MAX_BODY_BYTES } from '@rxinformer/core/http';
import { fetchApiClient, type ApiClient } from '@rxinformer/controller';
import { leaderElection, leaseClient, type LeaderElectionState, type Lease } from '@rxinformer/core/leader-election';
import { firstValueFrom } from 'rxjs';
import { createKubeInformerFactory, createKubeTransport, kubeApiClient, type KubeTransport } from '../src/index.ts';
import { startRawServer, type RawServer } from './rawServer.ts';
import { serverKubeConfig, waitFor } from './simHarness.ts';

/**
 * The server's bytes per body at the most: far past every limit but the list's, so a client that
 * reads without one fails these tests (its JSON cut short) rather than running out of memory.
 */
const SENT_AT_MOST = 64 * 1024 * 1024;
const CHUNK = 'x'.repeat(64 * 1024);

/** The bytes the server wrote into each body, as each answer's connection closed. */
const sentBodies: number[] = [];

/** Answers with `status` and a JSON body that never ends (cut at `SENT_AT_MOST`), written as fast as the client reads. */
function endless(res: ServerResponse, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  let sent = 0;
  res.on('close', () => sentBodies.push(sent));
  const pump = (): void => {
    if (sent === 0) sent += Buffer.byteLength('{"metadata":{"name":"x","annotations":{"a":"');
    while (sent < SENT_AT_MOST && !res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(sent === CHUNK.length ? `{"metadata":{"name":"x","annotations":{"a":"${CHUNK}` : CHUNK))
        return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

/** The error's figures: the limit passed, and what was read before the client stopped (one network chunk past it at most). */
function expectBounded(e: unknown, part: string, limit: number): void {
  expect(e).toBeInstanceOf(ResponseTooLargeError);
  const error = e as ResponseTooLargeError;
  expect(error).toMatchObject({ reason: 'ResponseTooLarge', part, limitBytes: limit });
  expect(error.receivedBytes).toBeGreaterThan(limit);
  expect(error.receivedBytes).toBeLessThanOrEqual(limit + 1024 * 1024);
}

let server: RawServer;
const transports: KubeTransport[] = [];
beforeAll(async () => {
  server = await startRawServer();
  server.handler = (_req, res) => endless(res);
});
afterAll(async () => {
  for (const t of transports) await t.close();
  await server.close();
});

const lease: Lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { namespace: 'default', name: 'l', resourceVersion: '1' },
};
const apiClients: [string, () => ApiClient][] = [
  ['fetchApiClient', () => fetchApiClient({ baseUrl: server.url })],
  [
    'kubeApiClient',
    () => {
      const transport = createKubeTransport(serverKubeConfig(server.url));
      transports.push(transport);
      return kubeApiClient(serverKubeConfig(server.url), { transport });
    },
  ],
];

describe.each(apiClients)('Lease calls through %s given a body that never ends', (_name, make) => {
  it('should fail a get and an update with a ResponseTooLargeError past the object limit', async () => {
    const client = leaseClient(make());
    expectBounded(await firstValueFrom(client.get('default', 'l')).catch((e: unknown) => e), 'objectBody', MAX_BODY_BYTES.objectBody);
    expectBounded(await firstValueFrom(client.update(lease)).catch((e: unknown) => e), 'objectBody', MAX_BODY_BYTES.objectBody);
  });

  it('should read no more than the error limit of an error answer, and still give its KubeApiError', async () => {
    server.handler = (_req, res) => endless(res, 500);
    try {
      sentBodies.length = 0;
      const e = await firstValueFrom(leaseClient(make()).get('default', 'l')).catch((error: unknown) => error);
      expect(e).toBeInstanceOf(KubeApiError);
      expect(e).toMatchObject({ code: 500 });
      // The client hung up past 1 MiB: the server could write little more than socket buffers hold.
      expect(await waitFor(() => sentBodies.length === 1)).toBe(true);
      expect(sentBodies[0]).toBeLessThan(SENT_AT_MOST / 4);
    } finally {
      server.handler = (_req, res) => endless(res);
    }
  });

  it("should put the error on a leader election's state stream", async () => {
    const election = leaderElection({ client: make(), namespace: 'default', name: 'l', identity: 'a' });
    const states: LeaderElectionState[] = [];
    const sub = election.subscribe((s) => states.push(s));
    try {
      expect(await waitFor(() => states.some((s) => 'lastError' in s && s.lastError instanceof ResponseTooLargeError))).toBe(true);
    } finally {
      sub.unsubscribe();
      await election.stop();
    }
  });
});

describe('the KubeConfig transport given a body that never ends', () => {
  const transport = () => {
    const t = createKubeTransport(serverKubeConfig(server.url));
    transports.push(t);
    return t;
  };

  it('should fail getJson past the object limit when asked for (the list limit by default)', async () => {
    expectBounded(
      await transport()
        .getJson('/api/v1/namespaces', undefined, 'objectBody')
        .catch((e: unknown) => e),
      'objectBody',
      MAX_BODY_BYTES.objectBody,
    );
    expect(MAX_BODY_BYTES.listBody).toBe(DEFAULT_MAX_LIST_BODY_BYTES);
  });

  it('should fail a discovery lookup past the object limit', async () => {
    const factory = createKubeInformerFactory(serverKubeConfig(server.url));
    try {
      const e = await factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }).catch((error: unknown) => error);
      expectBounded(e, 'objectBody', MAX_BODY_BYTES.objectBody);
    } finally {
      await factory.close();
    }
  });
});
