import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InvalidOptionsError,
  NetworkError,
  RequestTimeoutError,
  ResponseTooLargeError,
  WATCH_OPENED,
  type ReflectorStatus,
  type WatchEvent,
  type WatchItem,
} from '@rxinformer/core';
import { reflector } from '@rxinformer/core/reflector';
import { firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import { createKubeInformerFactory, createKubeTransport, pods, type KubeTransport } from '../src/index.ts';
import { PAGED, until } from '@rxinformer/testing';
import { listerWatcherMakers, plainKubeConfig, startRawServer, type RawServer } from './rawServer.ts';

// What a misbehaving server or network costs each HTTP ListerWatcher over real HTTP: a typed error
// and an aborted request, never an unbounded buffer or an endless wait.
let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
});
afterAll(async () => {
  await server.close();
});
const transports: KubeTransport[] = [];
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
});

const line = (e: WatchEvent) => JSON.stringify(e) + '\n';
const emptyList = '{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[]}';
/** The error of an Observable (or `undefined` if it has none within the polls of `until`). */
const errorOf = async (source: { subscribe(o: { error(e: unknown): void }): unknown }) => {
  let error: unknown;
  source.subscribe({ error: (e: unknown) => (error = e) });
  await until(() => error !== undefined);
  return error;
};
/** A port nothing listens on (any more). */
const closedPort = async (): Promise<number> => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  return port;
};
/** Writes `chunk` again and again until the client leaves. */
const forever = (res: import('node:http').ServerResponse, chunk: string) => {
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
};

describe.each(listerWatcherMakers(() => server.url, transports))('%s', (_name, make) => {
  it('should abort a watch whose line passes maxWatchLineBytes with a ResponseTooLargeError', async () => {
    server.handler = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(line({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } }));
      if (req.url?.includes('never-newline')) forever(res, 'x'.repeat(16 * 1024));
      else res.write(`{"type":"ADDED","object":{"metadata":{"name":"${'y'.repeat(300 * 1024)}"}}}\n`);
    };
    for (const rv of ['never-newline', 'long-line']) {
      server.closedRequests.length = 0;
      const events: string[] = [];
      let error: unknown;
      make({ maxWatchLineBytes: 256 * 1024 })
        .watch({ resourceVersion: rv })
        .subscribe({ next: (e) => events.push(e.type), error: (e: unknown) => (error = e) });
      await until(() => error !== undefined && server.closedRequests.some((u) => u.includes(rv)));
      expect(events).toEqual(['OPENED', 'ADDED']); // the good line before it still counts
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).part).toBe('watchLine');
      expect(server.closedRequests.some((u) => u.includes(rv))).toBe(true); // the request was aborted
    }
  });

  it('should abort a list whose body passes maxListBodyBytes, declared or not, with a ResponseTooLargeError', async () => {
    server.handler = (req, res) => {
      if (req.url?.includes('limit=1')) {
        res.writeHead(200, { 'Content-Length': String(10 * 1024 * 1024) });
        res.write('{"items":[');
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked, no length
        res.write('{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[');
        forever(res, '{"metadata":{"name":"x"}},');
      }
    };
    for (const limit of [1, 2]) {
      server.closedRequests.length = 0;
      const error = await errorOf(make({ maxListBodyBytes: 1024 * 1024 }).list({ limit }));
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect([(error as ResponseTooLargeError).part, (error as ResponseTooLargeError).limitBytes]).toEqual(['listBody', 1024 * 1024]);
      await until(() => server.closedRequests.some((u) => u.includes(`limit=${limit}`)));
      expect(server.closedRequests.some((u) => u.includes(`limit=${limit}`))).toBe(true);
    }
  });

  it('should give up on response headers that never arrive with a RequestTimeoutError on its scheduler', async () => {
    server.handler = () => undefined; // accepts, never answers
    const scheduler = new VirtualTimeScheduler();
    server.requests.length = 0;
    server.closedRequests.length = 0;
    let error: unknown;
    make({ responseTimeoutMs: 5_000, scheduler })
      .list({ limit: 7 })
      .subscribe({ error: (e: unknown) => (error = e) });
    await until(() => server.requests.length > 0); // the request is out
    expect(error).toBeUndefined();
    scheduler.flush(); // 5 s of virtual time
    await until(() => error !== undefined && server.closedRequests.length > 0);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect([(error as RequestTimeoutError).path, (error as RequestTimeoutError).timeoutMs]).toEqual(['/api/v1/pods?limit=7', 5_000]);
    expect(server.closedRequests).toEqual(['/api/v1/pods?limit=7']); // aborted
  });

  it('should give up on a watch whose headers never arrive after watchOpenTimeoutMs, not responseTimeoutMs', async () => {
    server.handler = () => undefined; // accepts, never answers
    const scheduler = new VirtualTimeScheduler();
    server.requests.length = 0;
    server.closedRequests.length = 0;
    const items: string[] = [];
    let error: unknown;
    make({ responseTimeoutMs: 60_000, watchOpenTimeoutMs: 2_000, scheduler })
      .watch({ resourceVersion: '5' })
      .subscribe({ next: (e) => items.push(e.type), error: (e: unknown) => (error = e) });
    await until(() => server.requests.length > 0);
    scheduler.maxFrames = 1_999;
    scheduler.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(error).toBeUndefined(); // not yet
    scheduler.maxFrames = 2_000;
    scheduler.flush();
    await until(() => error !== undefined && server.closedRequests.length > 0);
    expect(items).toEqual([]); // never opened
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ name: 'RequestTimeoutError', reason: 'WatchNotOpened', timeoutMs: 2_000 });
    expect((error as Error).message).toMatch(/^the watch \/api\/v1\/pods\?watch=true&resourceVersion=5 did not open within 2000 ms/);
    expect(server.closedRequests).toEqual(['/api/v1/pods?watch=true&resourceVersion=5']); // aborted
  });

  it('should tell the reflector when a watch opens: connecting until its headers, then watching', async () => {
    const held: import('node:http').ServerResponse[] = [];
    server.handler = (req, res) => {
      if (!req.url?.includes('watch=true')) return res.end(emptyList);
      held.push(res); // headers held back until the test sends them
    };
    const scheduler = new VirtualTimeScheduler();
    const statuses: ReflectorStatus[] = [];
    const lw = make({ watchOpenTimeoutMs: 10_000, scheduler });
    const sub = reflector(lw, { ...PAGED, scheduler, random: () => 0, backoff: { initialMs: 1_000 }, stallCheck: false }).subscribe((e) => {
      if (e.type === 'STATUS') statuses.push(e.status);
    });
    const phases = () => statuses.map((s) => `${s.phase} ${s.lastError === undefined ? '-' : (s.lastError as RequestTimeoutError).reason}`);
    await until(() => held.length === 1);
    expect(phases()).toEqual(['listing -', 'listing -', 'connecting -']); // synced, never `watching`
    scheduler.maxFrames = 10_000; // the watch's headers are late: it gives up, backs off 1 s
    scheduler.flush();
    await until(() => statuses.at(-1)?.phase === 'backingOff');
    scheduler.maxFrames = 11_000;
    scheduler.flush();
    await until(() => held.length === 2); // the second watch is out, its headers held too
    expect(phases().slice(3)).toEqual(['backingOff WatchNotOpened', 'connecting WatchNotOpened']);
    held[1].writeHead(200, { 'Content-Type': 'application/json' });
    held[1].flushHeaders();
    await until(() => statuses.at(-1)?.phase === 'watching');
    expect(phases().slice(5)).toEqual(['watching WatchNotOpened']); // open; the error goes with the first event
    held[1].write(line({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } }));
    await until(() => statuses.at(-1)?.lastError === undefined);
    expect(phases().slice(6)).toEqual(['watching -']);
    sub.unsubscribe();
  });

  it('should not time out a watch once its headers have arrived, however long its body is silent', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(line({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } })); // then silence
    };
    const scheduler = new VirtualTimeScheduler();
    const events: WatchItem[] = [];
    let error: unknown;
    const sub = make({ responseTimeoutMs: 5_000, scheduler })
      .watch({ resourceVersion: 'silent' })
      .subscribe({ next: (e) => events.push(e), error: (e: unknown) => (error = e) });
    await until(() => events.length > 1); // headers and a first line are in
    scheduler.flush(); // far past the response timeout
    await new Promise((r) => setTimeout(r, 20));
    expect(error).toBeUndefined();
    expect(sub.closed).toBe(false);
    sub.unsubscribe();
  });

  it('should end a watch the network cuts after the server answered, like a clean close, with what arrived', async () => {
    server.handler = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // A whole line, then half of one, then the connection is cut.
      res.write(line({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } }) + '{"type":"ADD', () => req.socket.destroy());
    };
    const events: WatchItem[] = [];
    let outcome: unknown;
    make({})
      .watch({})
      .subscribe({ next: (e) => events.push(e), error: (e: unknown) => (outcome = e), complete: () => (outcome = 'complete') });
    await until(() => outcome !== undefined);
    expect(outcome).toBe('complete');
    expect(events).toEqual([WATCH_OPENED, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } }]);
  });

  it('should re-watch a cut stream from the last resource version at once, without a relist or a backoff', async () => {
    let lists = 0;
    const watchRvs: string[] = [];
    server.handler = (req, res) => {
      if (!req.url?.includes('watch=true')) {
        lists++;
        return res.end(emptyList);
      }
      watchRvs.push(new URL(req.url, 'http://x').searchParams.get('resourceVersion') ?? '');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const rv = String(10 + watchRvs.length);
      res.write(line({ type: 'BOOKMARK', object: { metadata: { resourceVersion: rv } } }), () => req.socket.destroy());
    };
    const statuses: ReflectorStatus[] = [];
    const sub = reflector(make({}), { ...PAGED, backoff: { initialMs: 60_000, maxMs: 60_000 } }).subscribe((e) => {
      if (e.type === 'STATUS') statuses.push(e.status);
    });
    await until(() => watchRvs.length >= 3);
    sub.unsubscribe();
    expect(lists).toBe(1);
    expect(watchRvs.slice(0, 3)).toEqual(['1', '11', '12']); // each from the bookmark before it
    expect(statuses.some((s) => s.phase === 'backingOff')).toBe(false);
  });

  it('should type a refused connection as a NetworkError', async () => {
    const port = await closedPort();
    const [, makeThere] = listerWatcherMakers(() => `http://127.0.0.1:${port}`, transports).find(([n]) => n === _name)!;
    const error = await errorOf(makeThere({}).list({}));
    expect(error).toBeInstanceOf(NetworkError);
    expect([(error as NetworkError).reason, (error as NetworkError).code]).toEqual(['ConnectionRefused', 'ECONNREFUSED']);
  });

  it('should hand the reflector a typed error for its status, then retry', async () => {
    let watches = 0;
    server.handler = (req, res) => {
      if (!req.url?.includes('watch=true')) return res.end(emptyList);
      watches++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      forever(res, 'z'.repeat(16 * 1024));
    };
    const statuses: ReflectorStatus[] = [];
    const sub = reflector(make({ maxWatchLineBytes: 64 * 1024 }), { backoff: { initialMs: 1, maxMs: 1 } }).subscribe((e) => {
      if (e.type === 'STATUS') statuses.push(e.status);
    });
    await until(() => watches >= 2);
    sub.unsubscribe();
    const failed = statuses.find((s) => s.lastError !== undefined);
    expect(failed?.lastError).toBeInstanceOf(ResponseTooLargeError);
    expect(failed?.phase).toBe('backingOff');
    expect(watches).toBeGreaterThanOrEqual(2); // watched again after the backoff
  });

  it.each([
    ['responseTimeoutMs', Number.NaN],
    ['responseTimeoutMs', Number.POSITIVE_INFINITY],
    ['responseTimeoutMs', -1],
    ['watchOpenTimeoutMs', 0],
    ['watchOpenTimeoutMs', Number.NaN],
    ['maxWatchLineBytes', 0],
    ['maxWatchLineBytes', Number.NaN],
    ['maxListBodyBytes', -5],
    ['maxListBodyBytes', Number.POSITIVE_INFINITY],
  ])('should refuse %s: %p at construction with an InvalidOptionsError', (name, value) => {
    expect(() => make({ [name]: value })).toThrow(InvalidOptionsError);
    expect(() => make({ [name]: value })).toThrow(name);
  });

  it('should still list normally within its limits', async () => {
    server.handler = (_req, res) => res.end(emptyList);
    // A scheduler whose time never moves: the 1 ms timeout never fires, the exact-size body passes.
    const page = await firstValueFrom(
      make({ maxListBodyBytes: emptyList.length, responseTimeoutMs: 1, scheduler: new VirtualTimeScheduler() }).list({}),
    );
    expect(page.metadata?.resourceVersion).toBe('1');
  });
});

describe('createKubeTransport getJson', () => {
  it('should type a refused connection as a NetworkError, and leave a caller abort as it is', async () => {
    const port = await closedPort();
    const transport = createKubeTransport(plainKubeConfig(`http://127.0.0.1:${port}`, 't'));
    transports.push(transport);
    await expect(transport.getJson('/version')).rejects.toMatchObject({
      name: 'NetworkError',
      reason: 'ConnectionRefused',
      path: '/version',
    });
    const aborted = AbortSignal.abort();
    await expect(transport.getJson('/version', aborted)).rejects.not.toBeInstanceOf(NetworkError);
  });
});

describe('createKubeInformerFactory limits', () => {
  it('should refuse invalid limits at construction and hand valid ones to every informer', async () => {
    const kc = plainKubeConfig(server.url, 't');
    expect(() => createKubeInformerFactory(kc, { maxListBodyBytes: Number.NaN })).toThrow(InvalidOptionsError);
    expect(() => createKubeInformerFactory(kc, { responseTimeoutMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => createKubeInformerFactory(kc, { watchOpenTimeoutMs: 0 })).toThrow(/watchOpenTimeoutMs/);
    server.handler = (_req, res) => res.end(emptyList);
    const factory = createKubeInformerFactory(kc, { maxListBodyBytes: emptyList.length - 1 });
    const statuses: ReflectorStatus[] = [];
    factory.informerFor(pods, { reflector: PAGED }).status$.subscribe((s) => statuses.push(s)); // a limit of lists
    factory.start();
    await until(() => statuses.some((s) => s.lastError !== undefined));
    await factory.close();
    expect(statuses.find((s) => s.lastError !== undefined)?.lastError).toBeInstanceOf(ResponseTooLargeError);
  });
});
