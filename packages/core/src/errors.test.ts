import { describe, expect, it } from '@jest/globals';
import { KubeApiError, RxInformerError } from './errors.ts';

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
