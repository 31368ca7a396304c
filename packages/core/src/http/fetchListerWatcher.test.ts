import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { InvalidObjectError, InvalidOptionsError, KubeApiError, WatchDecodeError } from '../errors.ts';
import { fetchListerWatcher } from './fetchListerWatcher.ts';
import { andSelectors } from './httpListerWatcher.ts';
import { metadataOnly, PARTIAL_OBJECT_METADATA_ACCEPT } from '../partialObjectMetadata.ts';
import { WATCH_OPENED, type WatchEvent, type WatchItem } from '../types.ts';

// A fetch double: records requests, answers with a Response whose body streams the given chunks
// (the real WHATWG Response and ReadableStream, no Node-only API).
function fakeFetch(answer: (url: string) => { status?: number; headers?: Record<string, string>; chunks?: string[]; hold?: boolean }) {
  const calls: { url: string; init: RequestInit; cancelled: boolean }[] = [];
  const doFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const call = {
      url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      init: init ?? {},
      cancelled: false,
    };
    calls.push(call);
    const a = answer(call.url);
    const encoder = new TextEncoder();
    const chunks = a.chunks ?? [];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next !== undefined) controller.enqueue(encoder.encode(next));
        else if (!a.hold) controller.close();
        else return new Promise<void>(() => undefined); // stays open until cancelled
      },
      cancel() {
        call.cancelled = true;
      },
    });
    return new Response(body, { status: a.status ?? 200, headers: a.headers });
  }) as typeof fetch;
  return { doFetch, calls };
}

const pods = { group: '', version: 'v1', resource: 'pods', namespaced: true };
const line = (e: WatchEvent) => JSON.stringify(e) + '\n';

describe('fetchListerWatcher', () => {
  it('should ask for PartialObjectMetadata on list and watch for a metadataOnly resource, JSON otherwise', async () => {
    const { doFetch, calls } = fakeFetch((url) => ({
      chunks: url.includes('watch=true') ? [] : ['{"kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"9"},"items":[]}'],
    }));
    const accept = (i: number) => (calls[i].init.headers as Record<string, string>).Accept;
    const lw = fetchListerWatcher({ baseUrl: 'http://k8s', resource: metadataOnly(pods), fetch: doFetch });
    await firstValueFrom(lw.list({}));
    await lastValueFrom(lw.watch({}), { defaultValue: undefined });
    expect(accept(0)).toBe('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
    expect(accept(1)).toBe('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
    await firstValueFrom(fetchListerWatcher({ baseUrl: 'http://k8s', resource: pods, fetch: doFetch, headers: { 'X-A': '1' } }).list({}));
    expect(accept(2)).toBe('application/json');
    expect(PARTIAL_OBJECT_METADATA_ACCEPT.list).toBe(accept(0));
  });

  it('should list the resource path with its scope and the reflector options', async () => {
    const { doFetch, calls } = fakeFetch(() => ({
      chunks: ['{"kind":"PodList","metadata":{"resourceVersion":"9","continue":"c"},', '"items":[{"metadata":{"name":"a"}}]}'],
    }));
    const lw = fetchListerWatcher({
      baseUrl: 'http://k8s/',
      resource: pods,
      namespace: 'web',
      labelSelector: 'app=web',
      headers: { Authorization: 'Bearer t' },
      init: { credentials: 'include' },
      fetch: doFetch,
    });
    const page = await firstValueFrom(lw.list({ limit: 500, labelSelector: 'tier=fe' }));
    expect(page.metadata).toEqual({ resourceVersion: '9', continue: 'c' });
    expect(page.items).toEqual([{ metadata: { name: 'a' } }]);
    expect(calls[0].url).toBe('http://k8s/api/v1/namespaces/web/pods?limit=500&labelSelector=app%3Dweb%2Ctier%3Dfe');
    expect(calls[0].init.headers).toEqual({ Accept: 'application/json', Authorization: 'Bearer t' });
    expect(calls[0].init.credentials).toBe('include');
  });

  it('should turn an error answer into a KubeApiError and a non-list body into an InvalidObjectError', async () => {
    const { doFetch } = fakeFetch((url) =>
      url.includes('limit=1')
        ? {
            status: 429,
            headers: { 'Retry-After': '2', 'Content-Type': 'text/plain' },
            chunks: ['Too many requests, please try again later.\n'],
          }
        : { chunks: ['{"kind":"Status"}'] },
    );
    const lw = fetchListerWatcher({ baseUrl: 'http://k8s', path: '/api/v1/pods', fetch: doFetch });
    const limited = await firstValueFrom(lw.list({ limit: 1 })).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(KubeApiError);
    expect([(limited as KubeApiError).code, (limited as KubeApiError).retryAfterSeconds]).toEqual([429, 2]);
    await expect(firstValueFrom(lw.list({}))).rejects.toBeInstanceOf(InvalidObjectError);
  });

  it('should emit watch events across chunk boundaries and complete when the server closes', async () => {
    const events: WatchEvent[] = [
      { type: 'ADDED', object: { metadata: { name: 'ä', resourceVersion: '2' } } },
      { type: 'DELETED', object: { metadata: { name: 'ä', resourceVersion: '3' } } },
    ];
    const text = events.map(line).join('');
    const { doFetch, calls } = fakeFetch(() => ({ chunks: [text.slice(0, 25), text.slice(25, 60), text.slice(60)] }));
    const lw = fetchListerWatcher({ baseUrl: 'http://k8s', resource: pods, fetch: doFetch });
    expect(await lastValueFrom(lw.watch({ resourceVersion: '1', allowWatchBookmarks: true }).pipe(toArray()))).toEqual([
      WATCH_OPENED,
      ...events,
    ]);
    expect(calls[0].url).toBe('http://k8s/api/v1/pods?watch=true&resourceVersion=1&allowWatchBookmarks=true');
  });

  it('should fail the watch on a malformed line, after the good events before it', async () => {
    const { doFetch } = fakeFetch(() => ({
      chunks: [line({ type: 'ADDED', object: { metadata: { name: 'a' } } }), 'not json\n', line({ type: 'ADDED', object: {} })],
    }));
    const seen: WatchItem[] = [];
    const error = await new Promise((resolve) =>
      fetchListerWatcher({ baseUrl: 'http://k8s', resource: pods, fetch: doFetch })
        .watch({})
        .subscribe({ next: (e) => seen.push(e), error: resolve }),
    );
    expect(seen.map((e) => e.type)).toEqual(['OPENED', 'ADDED']);
    expect(error).toBeInstanceOf(WatchDecodeError);
  });

  it('should abort the request and release the stream when unsubscribed', async () => {
    const { doFetch, calls } = fakeFetch(() => ({ chunks: [line({ type: 'ADDED', object: { metadata: { name: 'a' } } })], hold: true }));
    const lw = fetchListerWatcher({ baseUrl: 'http://k8s', resource: pods, fetch: doFetch });
    await firstValueFrom(lw.watch({}).pipe(take(1)));
    expect((calls[0].init.signal as AbortSignal).aborted).toBe(true);
  });

  it('should refuse options without a path or resource', () => {
    expect(() => fetchListerWatcher({ baseUrl: 'http://k8s' })).toThrow(InvalidOptionsError);
    expect(() => fetchListerWatcher({ baseUrl: 'http://k8s', resource: { ...pods, namespaced: false }, namespace: 'x' })).toThrow(
      /cluster-scoped/,
    );
  });

  it('should refuse at once a selector the API server would answer 400 to forever', () => {
    const base = { baseUrl: 'http://k8s', path: '/api/v1/pods' };
    expect(() => fetchListerWatcher({ ...base, labelSelector: 'replicate in (a' })).toThrow(InvalidOptionsError);
    expect(() => fetchListerWatcher({ ...base, fieldSelector: 'status.phase' })).toThrow('fieldSelector: invalid field selector');
    expect(() => fetchListerWatcher({ ...base, labelSelector: 'app=web', fieldSelector: 'status.phase!=Failed' })).not.toThrow();
  });
});

describe('andSelectors', () => {
  it('should AND two selectors and keep either alone', () => {
    expect(andSelectors('a=1', 'b=2')).toBe('a=1,b=2');
    expect(andSelectors(undefined, 'b=2')).toBe('b=2');
    expect(andSelectors('a=1', '')).toBe('a=1');
    expect(andSelectors('a=1', 'a=1')).toBe('a=1');
    expect(andSelectors(undefined, undefined)).toBeUndefined();
  });
});
