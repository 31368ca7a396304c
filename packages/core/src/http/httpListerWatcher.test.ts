import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import type { HttpGet, HttpResponse } from './httpGet.ts';
import { httpListerWatcher } from './httpListerWatcher.ts';
import { KubeApiError } from '../errors.ts';
import type { KubeObject, ListPage } from '../types.ts';

/** A list body of `names`, with `continue` when given (metadata first, as API servers write it). */
const body = (names: string[], token?: string): string =>
  JSON.stringify({
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '7', ...(token !== undefined && { continue: token }) },
    items: names.map((name) => ({ metadata: { name, namespace: 'a', uid: name, resourceVersion: '7' } })),
  });

/** An HttpGet answering by URL, recording each request and its signal. */
function server(pages: Record<string, string>) {
  const requests: { url: string; signal: AbortSignal }[] = [];
  const get: HttpGet = async (url, signal) => {
    requests.push({ url, signal });
    const text = pages[url];
    const answer: HttpResponse =
      text === undefined
        ? {
            status: 410,
            header: () => undefined,
            chunks: async function* () {
              yield JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'expired' });
            },
          }
        : {
            status: 200,
            header: () => undefined,
            chunks: async function* () {
              yield text;
            },
          };
    return answer;
  };
  return { get, requests };
}

const names = (page: ListPage<KubeObject>): string[] => page.items.map((o) => o.metadata!.name!);

describe('httpListerWatcher list prefetch', () => {
  const pages = {
    '/api/v1/pods?limit=2': body(['p1', 'p2'], 'tok-2'),
    '/api/v1/pods?limit=2&continue=tok-2': body(['p3', 'p4'], 'tok-3'),
    '/api/v1/pods?limit=2&continue=tok-3': body(['p5']),
  };

  it('should request the next page before handing this one over, and let the consumer adopt it', async () => {
    const { get, requests } = server(pages);
    const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
    const seen: string[][] = [];
    const requestsAtHandover: number[] = [];
    // Like the reflector: ask for the next page while the current one is being handed over.
    const all = await new Promise<string[][]>((resolve, reject) => {
      const listFrom = (token?: string): void => {
        const sub = lw.list({ limit: 2, ...(token !== undefined && { continue: token }) }).subscribe({
          next: (page) => {
            seen.push(names(page));
            requestsAtHandover.push(requests.length);
            const next = page.metadata?.continue;
            if (next) listFrom(next);
            else resolve(seen);
          },
          error: reject,
        });
        void sub;
      };
      listFrom();
    });
    expect(all).toEqual([['p1', 'p2'], ['p3', 'p4'], ['p5']]);
    expect(requests.map((r) => r.url)).toEqual(Object.keys(pages)); // one request per page, none twice
    expect(requestsAtHandover).toEqual([2, 3, 3]); // the next page was on its way before this one was handed over
  });

  it("should hand a page over only after the event loop had a turn to write the next page's request", async () => {
    const { get: answer } = server(pages);
    const written = new Set<string>();
    // A transport that writes each request in a later task, as a socket does.
    const get: HttpGet = (url, signal, kind) => {
      setTimeout(() => written.add(url), 0);
      return answer(url, signal, kind);
    };
    const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
    let nextWritten: boolean | undefined;
    let sub: { unsubscribe(): void } | undefined;
    await new Promise<void>((resolve, reject) => {
      sub = lw.list({ limit: 2 }).subscribe({
        next: () => {
          nextWritten = written.has('/api/v1/pods?limit=2&continue=tok-2');
          resolve();
        },
        error: reject,
      });
    });
    sub?.unsubscribe();
    expect(nextWritten).toBe(true);
  });

  it('should hand pages over through a MessageChannel in a web page (timers are throttled in background tabs)', async () => {
    const g = globalThis as { document?: unknown; MessageChannel?: unknown };
    let channels = 0;
    const Real = g.MessageChannel as new () => MessageChannel;
    g.document = {};
    g.MessageChannel = class extends Real {
      constructor() {
        super();
        channels++;
      }
    };
    try {
      const { get, requests } = server(pages);
      const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
      const seen = await new Promise<string[][]>((resolve, reject) => {
        const all: string[][] = [];
        const listFrom = (token?: string): void => {
          lw.list({ limit: 2, ...(token !== undefined && { continue: token }) }).subscribe({
            next: (page) => {
              all.push(names(page));
              if (page.metadata?.continue) listFrom(page.metadata.continue);
              else resolve(all);
            },
            error: reject,
          });
        };
        listFrom();
      });
      expect(seen).toEqual([['p1', 'p2'], ['p3', 'p4'], ['p5']]);
      expect(requests.map((r) => r.url)).toEqual(Object.keys(pages));
      expect(channels).toBe(2); // one hand-over per page with a next page
    } finally {
      delete g.document;
      g.MessageChannel = Real;
    }
  });

  it('should abort the prefetch, and hand nothing over, when the consumer leaves before the hand-over', async () => {
    const { get: answer, requests } = server(pages);
    let prefetched!: () => void;
    const started = new Promise<void>((r) => {
      prefetched = r;
    });
    const get: HttpGet = (url, signal, kind) => {
      if (url.includes('continue')) prefetched();
      return answer(url, signal, kind);
    };
    const seen: unknown[] = [];
    const sub = httpListerWatcher(get, { path: '/api/v1/pods' })
      .list({ limit: 2 })
      .subscribe((p) => seen.push(p));
    await started; // page 1 is read and its next page requested; the hand-over waits a task
    sub.unsubscribe();
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual([]);
    expect(requests.map((r) => r.signal.aborted)).toEqual([true, true]);
  });

  it('should not prefetch for a "continue" key inside an item of the last page', async () => {
    const last = JSON.stringify({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: { name: 'c', namespace: 'a', resourceVersion: '7' }, data: { continue: 'not-a-token' } }],
    });
    const { get, requests } = server({ '/api/v1/configmaps?limit=2': last });
    const page = await firstValueFrom(httpListerWatcher(get, { path: '/api/v1/configmaps' }).list({ limit: 2 }));
    expect(page.items).toHaveLength(1);
    expect(requests.map((r) => r.url)).toEqual(['/api/v1/configmaps?limit=2']);
  });

  it('should send one request, and no prefetch, for a list that wants a single page', async () => {
    const { get, requests } = server(pages);
    const page = await firstValueFrom(httpListerWatcher(get, { path: '/api/v1/pods' }).list({ limit: 2, singlePage: true }));
    expect(page.metadata?.continue).toBe('tok-2'); // the server has more: the page still says so
    expect(requests.map((r) => r.url)).toEqual(['/api/v1/pods?limit=2']); // the option is not sent either
  });

  it('should abort a prefetched page nobody asks for at once', async () => {
    const { get, requests } = server(pages);
    const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
    const first = await firstValueFrom(lw.list({ limit: 2 }));
    expect(names(first)).toEqual(['p1', 'p2']);
    expect(requests.map((r) => r.url)).toEqual(['/api/v1/pods?limit=2', '/api/v1/pods?limit=2&continue=tok-2']);
    expect(requests[1]!.signal.aborted).toBe(true);
    // Asking for it later sends a fresh request.
    const second = await firstValueFrom(lw.list({ limit: 2, continue: 'tok-2' }));
    expect(names(second)).toEqual(['p3', 'p4']);
    expect(requests.filter((r) => r.url === '/api/v1/pods?limit=2&continue=tok-2')).toHaveLength(2);
  });

  it('should not adopt a prefetch for other options, and pass an adopted error on', async () => {
    const { get, requests } = server({ '/api/v1/pods?limit=2': body(['p1', 'p2'], 'gone') });
    const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
    const outcome = await new Promise<unknown>((resolve) => {
      lw.list({ limit: 2 }).subscribe({
        next: () => lw.list({ limit: 2, continue: 'gone' }).subscribe({ next: resolve, error: resolve }),
      });
    });
    expect(outcome).toBeInstanceOf(KubeApiError);
    expect((outcome as KubeApiError).code).toBe(410); // the prefetched answer's error
    expect(requests).toHaveLength(2);

    const other = server(pages);
    const lw2 = httpListerWatcher(other.get, { path: '/api/v1/pods' });
    other.requests.length = 0;
    const page = await new Promise<ListPage<KubeObject>>((resolve, reject) => {
      lw2.list({ limit: 2 }).subscribe({
        error: reject,
        next: () => lw2.list({ limit: 5 }).subscribe({ next: resolve, error: () => resolve({ metadata: {}, items: [] }) }),
      });
    });
    expect(page.items).toEqual([]);
    // The guessed request (the next page of limit 2) was aborted, not reused for another query.
    expect(other.requests.map((r) => r.url)).toEqual([
      '/api/v1/pods?limit=2',
      '/api/v1/pods?limit=2&continue=tok-2',
      '/api/v1/pods?limit=5',
    ]);
    expect(other.requests[1]!.signal.aborted).toBe(true);
  });

  it('should abort an adopted prefetch when its consumer unsubscribes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const requests: { url: string; signal: AbortSignal }[] = [];
    const get: HttpGet = async (url, signal) => {
      requests.push({ url, signal });
      if (url.includes('continue')) await gate;
      const text = pages[url as keyof typeof pages]!;
      return {
        status: 200,
        header: () => undefined,
        text: async () => text,
        chunks: async function* () {
          yield text;
        },
      };
    };
    const lw = httpListerWatcher(get, { path: '/api/v1/pods' });
    await new Promise<void>((resolve) => {
      lw.list({ limit: 2 }).subscribe({
        next: () => {
          lw.list({ limit: 2, continue: 'tok-2' }).subscribe().unsubscribe();
          resolve();
        },
      });
    });
    expect(requests).toHaveLength(2);
    expect(requests[1]!.signal.aborted).toBe(true);
    release();
    expect(await lastValueFrom(lw.list({ limit: 2, continue: 'tok-3' }).pipe(toArray()))).toHaveLength(1);
  });
});
