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
});
