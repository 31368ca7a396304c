import { describe, expect, it } from '@jest/globals';
import { InvalidObjectError, NetworkError } from '@rxinformer/core';
import { type HttpResponse } from '@rxinformer/core/http';
import { fetchApiClient, httpApiClient, type HttpRequest } from './apiClient.ts';
import { ApiError } from './apiError.ts';

const answer = (status: number, text: string): HttpResponse => ({
  status,
  header: () => undefined,
  chunks: async function* () {
    yield text;
  },
});

describe('httpApiClient', () => {
  it('should send the query, the JSON body and its media type, and parse the answer', async () => {
    const seen: HttpRequest[] = [];
    const client = httpApiClient(async (r) => {
      seen.push(r);
      return answer(200, '{"kind":"ConfigMap"}');
    });
    const got = await client.request({
      method: 'PATCH',
      path: '/api/v1/namespaces/a/configmaps/x',
      query: { fieldManager: 'me/you', force: true, dryRun: undefined },
      body: { data: { a: '1' } },
      contentType: 'application/apply-patch+yaml',
    });
    expect(got).toEqual({ kind: 'ConfigMap' });
    expect(seen[0]).toMatchObject({
      method: 'PATCH',
      pathAndQuery: '/api/v1/namespaces/a/configmaps/x?fieldManager=me%2Fyou&force=true',
      body: '{"data":{"a":"1"}}',
      contentType: 'application/apply-patch+yaml',
    });
    await client.request({ method: 'POST', path: '/p', body: {} });
    expect(seen[1].contentType).toBe('application/json');
    await client.request({ method: 'GET', path: '/p' });
    expect(seen[2]).toMatchObject({ body: undefined, contentType: undefined, pathAndQuery: '/p' });
  });

  it('should type error answers, a body that is not JSON, and a failed connection', async () => {
    const status = '{"kind":"Status","code":409,"reason":"AlreadyExists","message":"configmaps \\"x\\" already exists"}';
    const exists = await httpApiClient(async () => answer(409, status))
      .request({ method: 'POST', path: '/api/v1/namespaces/a/configmaps' })
      .catch((e: unknown) => e);
    expect(exists).toBeInstanceOf(ApiError);
    expect(exists).toMatchObject({ code: 409, reason: 'AlreadyExists', request: 'POST /api/v1/namespaces/a/configmaps' });
    expect(String(exists)).toBe('AlreadyExists: configmaps "x" already exists');
    const proxy = await httpApiClient(async () => answer(502, '<html>Bad gateway</html>'))
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect(String(proxy)).toBe('InternalError: <html>Bad gateway</html>');
    await expect(httpApiClient(async () => answer(200, 'not json')).request({ method: 'GET', path: '/x' })).rejects.toThrow(
      InvalidObjectError,
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(httpApiClient(() => Promise.reject(refused)).request({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(NetworkError);
  });

  it("should abort the request with the caller's signal, and release it once answered", async () => {
    const signals: AbortSignal[] = [];
    const client = httpApiClient(
      (r) =>
        new Promise<HttpResponse>((resolve, reject) => {
          signals.push(r.signal);
          if (r.pathAndQuery === '/now') resolve(answer(200, '{}'));
          r.signal.addEventListener('abort', () => reject(r.signal.reason as Error));
        }),
    );
    await client.request({ method: 'GET', path: '/now' });
    expect(signals[0].aborted).toBe(true);
    const caller = new AbortController();
    const pending = client.request({ method: 'GET', path: '/slow', signal: caller.signal });
    caller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(signals[1].aborted).toBe(true);
  });
});

describe('fetchApiClient', () => {
  it('should send through the given fetch with the base URL, headers and media type', async () => {
    const calls: [string, RequestInit][] = [];
    const fetch = (async (url: string, init: RequestInit) => {
      calls.push([url, init]);
      return new Response('{"ok":true}', { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const client = fetchApiClient({ baseUrl: 'http://proxy:8001/', headers: { Authorization: 'Bearer t' }, fetch });
    expect(await client.request({ method: 'PATCH', path: '/x', body: [], contentType: 'application/json-patch+json' })).toEqual({
      ok: true,
    });
    expect(calls[0][0]).toBe('http://proxy:8001/x');
    expect(calls[0][1]).toMatchObject({
      method: 'PATCH',
      body: '[]',
      headers: { Accept: 'application/json', Authorization: 'Bearer t', 'Content-Type': 'application/json-patch+json' },
    });
    expect(() => fetchApiClient({} as { baseUrl: string })).toThrow(/baseUrl/);
  });
});
