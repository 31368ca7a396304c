import { describe, expect, it } from '@jest/globals';
import { asyncScheduler, VirtualTimeScheduler } from 'rxjs';
import { InvalidOptionsError, KubeApiError, NetworkError, ResponseTooLargeError } from '../errors.ts';
import { networkErrorFrom } from './httpErrors.ts';
import {
  DEFAULT_MAX_LIST_BODY_BYTES,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  errorBody,
  MAX_BODY_BYTES,
  readBody,
  resolveHttpLimits,
} from './httpLimits.ts';
import type { HttpResponse } from './httpGet.ts';
import { DEFAULT_MAX_WATCH_LINE_BYTES } from './watchDecoder.ts';

/** An answer whose body is `chunks`, with `headers`. */
const answer = (chunks: (string | Uint8Array)[], headers: Record<string, string> = {}): HttpResponse => ({
  status: 200,
  header: (name) => headers[name],
  chunks: async function* () {
    yield* chunks;
  },
});

describe('resolveHttpLimits', () => {
  it('should fill in the documented defaults', () => {
    expect(resolveHttpLimits()).toEqual({
      responseTimeoutMs: DEFAULT_RESPONSE_TIMEOUT_MS,
      watchOpenTimeoutMs: DEFAULT_RESPONSE_TIMEOUT_MS,
      maxWatchLineBytes: DEFAULT_MAX_WATCH_LINE_BYTES,
      maxListBodyBytes: DEFAULT_MAX_LIST_BODY_BYTES,
      scheduler: asyncScheduler,
    });
    expect([DEFAULT_RESPONSE_TIMEOUT_MS, DEFAULT_MAX_WATCH_LINE_BYTES, DEFAULT_MAX_LIST_BODY_BYTES]).toEqual([90_000, 2 ** 24, 2 ** 28]);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, 0, '5' as unknown as number])(
    'should refuse %p for every limit with an InvalidOptionsError naming it',
    (value) => {
      for (const name of ['responseTimeoutMs', 'watchOpenTimeoutMs', 'maxWatchLineBytes', 'maxListBodyBytes'] as const) {
        expect(() => resolveHttpLimits({ [name]: value })).toThrow(InvalidOptionsError);
        expect(() => resolveHttpLimits({ [name]: value })).toThrow(name);
      }
    },
  );

  it("should give a watch's headers the response timeout unless told otherwise", () => {
    expect(resolveHttpLimits({ responseTimeoutMs: 30_000 })).toMatchObject({ responseTimeoutMs: 30_000, watchOpenTimeoutMs: 30_000 });
    expect(resolveHttpLimits({ watchOpenTimeoutMs: 2_000 })).toMatchObject({ responseTimeoutMs: 90_000, watchOpenTimeoutMs: 2_000 });
  });

  it('should refuse a scheduler that is not one', () => {
    expect(() => resolveHttpLimits({ scheduler: {} as VirtualTimeScheduler })).toThrow(InvalidOptionsError);
  });
});

describe('readBody', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);

  it('should join byte chunks, a character cut between them included, and text chunks', async () => {
    const all = bytes('{"a":"é☃"}');
    expect(await readBody(answer([all.subarray(0, 7), all.subarray(7)]), '/p', 'listBody', 100)).toBe('{"a":"é☃"}');
    expect(await readBody(answer(['{"a":', bytes('"é"'), '}']), '/p', 'listBody', 100)).toBe('{"a":"é"}');
  });

  it('should accept a body of exactly the limit and refuse one byte more, as it arrives or by Content-Length', async () => {
    expect(await readBody(answer([bytes('12345'), bytes('67890')]), '/p', 'listBody', 10)).toBe('1234567890');
    await expect(readBody(answer([bytes('12345'), bytes('678901')]), '/p', 'listBody', 10)).rejects.toBeInstanceOf(ResponseTooLargeError);
    let read = false;
    const declared: HttpResponse = {
      ...answer([]),
      header: (name) => (name === 'content-length' ? '11' : undefined),
      chunks: () => {
        read = true;
        return answer([bytes('x')]).chunks();
      },
    };
    await expect(readBody(declared, '/p', 'listBody', 10)).rejects.toMatchObject({ part: 'listBody', limitBytes: 10 });
    expect(read).toBe(false); // refused unread
  });

  it('should type a failure while reading as a NetworkError and stop reading at once past the limit', async () => {
    let pulled = 0;
    const long: HttpResponse = {
      ...answer([]),
      chunks: async function* () {
        for (let i = 0; i < 1000; i++) {
          pulled++;
          yield bytes('x'.repeat(4));
        }
      },
    };
    await expect(readBody(long, '/p', 'listBody', 10)).rejects.toMatchObject({ part: 'listBody', limitBytes: 10, receivedBytes: 12 });
    expect(pulled).toBe(3);
    const cut: HttpResponse = {
      ...answer([]),
      chunks: async function* () {
        yield bytes('{');
        throw new TypeError('terminated');
      },
    };
    await expect(readBody(cut, '/p', 'listBody', 10)).rejects.toMatchObject({ name: 'NetworkError', reason: 'Terminated', path: '/p' });
  });
});

describe('MAX_BODY_BYTES', () => {
  it("should bound each part read whole by default: an object's body at 4 MiB, an error's at 1 MiB, a list's at 256 MiB", async () => {
    expect(MAX_BODY_BYTES).toEqual({ listBody: DEFAULT_MAX_LIST_BODY_BYTES, objectBody: 4 * 2 ** 20, errorBody: 2 ** 20 });
    let pulled = 0;
    const endless: HttpResponse = {
      ...answer([]),
      chunks: async function* () {
        for (;;) {
          pulled++;
          yield new Uint8Array(64 * 1024);
        }
      },
    };
    const e = await readBody(endless, '/lease', 'objectBody').catch((error: unknown) => error);
    expect(e).toMatchObject({
      part: 'objectBody',
      limitBytes: MAX_BODY_BYTES.objectBody,
      receivedBytes: MAX_BODY_BYTES.objectBody + 64 * 1024,
    });
    expect((e as Error).message).toContain('/lease');
    expect(pulled).toBe(65);
    expect(await errorBody(endless, '/lease')).toBe('');
  });
});

describe('networkErrorFrom', () => {
  const withCode = (message: string, code: string, cause?: unknown) => Object.assign(new Error(message, { cause }), { code });

  it('should take the reason from the first known code on the cause chain, and keep the original as cause', () => {
    const socket = withCode('other side closed', 'UND_ERR_SOCKET');
    const terminated = new TypeError('terminated', { cause: socket });
    const e = networkErrorFrom(terminated, '/api/v1/pods?watch=true') as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect([e.reason, e.code, e.path, e.cause]).toEqual(['ConnectionReset', 'UND_ERR_SOCKET', '/api/v1/pods?watch=true', terminated]);
    expect(e.message).toBe('connection reset [UND_ERR_SOCKET]: terminated: other side closed (GET /api/v1/pods?watch=true)');
    const refused = new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED') });
    expect(networkErrorFrom(refused)).toMatchObject({ reason: 'ConnectionRefused', code: 'ECONNREFUSED' });
  });

  it.each([
    [withCode('x', 'ENOTFOUND'), 'HostNotFound'],
    [withCode('x', 'UND_ERR_CONNECT_TIMEOUT'), 'ConnectTimeout'],
    [withCode('x', 'UND_ERR_HEADERS_TIMEOUT'), 'HeadersTimeout'],
    [withCode('x', 'UND_ERR_BODY_TIMEOUT'), 'BodyTimeout'],
    [new TypeError('fetch failed', { cause: withCode('self-signed', 'DEPTH_ZERO_SELF_SIGNED_CERT') }), 'TlsFailure'],
    [withCode('x', 'ERR_TLS_CERT_ALTNAME_INVALID'), 'TlsFailure'],
    [new TypeError('terminated'), 'Terminated'],
    [new TypeError('Failed to fetch'), 'NetworkFailure'],
    [withCode('x', 'E_SOMETHING_ELSE'), 'NetworkFailure'],
    ['a string', 'NetworkFailure'],
  ])('should read %p as %s', (error, reason) => {
    expect(networkErrorFrom(error)).toMatchObject({ name: 'NetworkError', reason, cause: error });
  });

  it('should return an rxinformer error as it is', () => {
    const own = new KubeApiError(500);
    expect(networkErrorFrom(own)).toBe(own);
  });
});
