import { describe, expect, it } from '@jest/globals';
import {
  bodyExcerpt,
  checkNumber,
  checkScheduler,
  InvalidOptionsError,
  jsonErrorDetail,
  KubeApiError,
  withCause,
  RxInformerError,
  WatchDecodeError,
} from './errors.ts';
import { asyncScheduler } from 'rxjs';
import { apiErrorFromResponse } from './http/httpErrors.ts';

describe('KubeApiError', () => {
  it('should take reason, message and retry-after from the Status body', () => {
    const err = new KubeApiError(429, {
      status: {
        kind: 'Status',
        status: 'Failure',
        reason: 'TooManyRequests',
        message: 'slow down',
        code: 429,
        details: { retryAfterSeconds: 3 },
      },
    });
    expect(err).toBeInstanceOf(RxInformerError);
    expect(err.name).toBe('KubeApiError');
    expect(err.reason).toBe('TooManyRequests');
    expect(err.message).toBe('slow down');
    expect(err.retryAfterSeconds).toBe(3);
    expect(err.isGone).toBe(false);
  });

  it('should fall back to a reason derived from the code', () => {
    const err = new KubeApiError(410);
    expect(err.reason).toBe('Expired');
    expect(err.isGone).toBe(true);
    expect(err.message).toBe('the server answered 410 Expired');
  });

  it('should drop a retry-after that is not a finite number >= 0, from a Status body or the caller', () => {
    // JSON can carry 1e400 (Infinity once parsed), negatives and strings; a caller can pass NaN.
    for (const bad of [Number.NaN, Infinity, -Infinity, -5, '7', null, {}]) {
      const fromBody = new KubeApiError(503, { status: { kind: 'Status', code: 503, details: { retryAfterSeconds: bad as number } } });
      expect(fromBody.retryAfterSeconds).toBeUndefined();
      expect(new KubeApiError(429, { retryAfterSeconds: bad as number }).retryAfterSeconds).toBeUndefined();
    }
    // A bad header value falls back to a good body value; 0 is kept.
    const status = { kind: 'Status' as const, code: 503, details: { retryAfterSeconds: 2 } };
    expect(new KubeApiError(503, { status, retryAfterSeconds: Number.NaN }).retryAfterSeconds).toBe(2);
    expect(new KubeApiError(503, { retryAfterSeconds: 0 }).retryAfterSeconds).toBe(0);
  });
});

describe('messages never carry what a server sent as JSON', () => {
  const secret = '{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}';

  it('should show the start of a page that is not JSON, and only the size of JSON, in bodyExcerpt', () => {
    expect(bodyExcerpt('  <html>Sign in</html> ')).toBe('<html>Sign in</html>');
    expect(bodyExcerpt(secret)).toBe(`(${secret.length} characters of JSON, not shown)`);
    expect(bodyExcerpt(secret.slice(0, 30))).not.toContain('Secret');
    expect(bodyExcerpt('')).toBe('(empty)');
  });

  it("should drop V8's quotation of the input from a JSON.parse error in jsonErrorDetail", () => {
    const error = (text: string) => {
      try {
        JSON.parse(text);
      } catch (e) {
        return e;
      }
    };
    for (const text of ['password=aHVudGVyMg==', secret.slice(0, -1), 'aHVudGVyMg=='])
      expect(jsonErrorDetail(error(text))).not.toContain('aHVudGVy');
    expect(jsonErrorDetail(error('{"a":'))).toMatch(/JSON/);
  });

  it("should not quote a watch line in a WatchDecodeError's message, nor a body in an API error's", () => {
    expect(new WatchDecodeError(secret, 'not JSON').message).toBe('malformed watch line (not JSON)');
    expect(apiErrorFromResponse(500, `{"echo":${secret}}`, undefined).message).not.toContain('aHVudGVy');
    expect(apiErrorFromResponse(502, 'Bad gateway', undefined).message).toBe('Bad gateway');
  });
});

describe('withCause', () => {
  it("should end a wrapper's message with its cause's words, once", () => {
    expect(withCause('sync failed', new Error('call start() first'))).toBe('sync failed: call start() first');
    expect(withCause('sync failed', new TypeError())).toBe('sync failed: TypeError');
    expect(withCause('sync failed', 'gone')).toBe('sync failed: "gone"');
    expect(withCause('sync failed', new DOMException('shutting down', 'AbortError'))).toBe('sync failed: shutting down');
    expect(withCause('sync failed', undefined)).toBe('sync failed');
    expect(withCause('sync failed: call start() first', new Error('call start() first'))).toBe('sync failed: call start() first');
  });
});

describe('checkNumber and checkScheduler', () => {
  it('should give the value or its default, and refuse NaN, Infinity and numbers below min', () => {
    expect(checkNumber('n', undefined, 5, 0)).toBe(5);
    expect(checkNumber('n', 0, 5, 0)).toBe(0);
    for (const bad of [Number.NaN, Infinity, -1]) expect(() => checkNumber('n', bad, 5, 0)).toThrow(InvalidOptionsError);
    expect(() => checkNumber('n', -1, 5, 0)).toThrow('n must be a finite number >= 0, got -1');
  });

  it('should refuse min itself when exclusive, fractions when integer, and accept Infinity only when infinite', () => {
    expect(() => checkNumber('qps', 0, 10, 0, { exclusive: true })).toThrow('qps must be a finite number > 0, got 0');
    expect(() => checkNumber('pages', 1.5, 10, 1, { integer: true })).toThrow('pages must be an integer >= 1, got 1.5');
    expect(checkNumber('capMs', undefined, Infinity, 0, { infinite: true })).toBe(Infinity);
    expect(checkNumber('capMs', Infinity, 5, 0, { infinite: true, integer: true })).toBe(Infinity);
    expect(() => checkNumber('capMs', Number.NaN, 5, 0, { infinite: true })).toThrow('capMs must be a number >= 0, got NaN');
    expect(() => checkNumber('capMs', -Infinity, 5, 0, { infinite: true })).toThrow(InvalidOptionsError);
  });

  it('should accept an RxJS scheduler or undefined, and refuse anything else with its prefix', () => {
    expect(() => checkScheduler(undefined)).not.toThrow();
    expect(() => checkScheduler(asyncScheduler)).not.toThrow();
    expect(() => checkScheduler({ now: () => 0 }, 'x: ')).toThrow('x: scheduler must be an RxJS scheduler');
    expect(() => checkScheduler(null)).toThrow(InvalidOptionsError);
  });
});
