import { describe, expect, it } from '@jest/globals';
import { KubeApiError } from '@rxinformer/core';
import { countError, emptyStats } from './soakClient.ts';

describe('countError', () => {
  it('should count errors by class, HTTP code and expired continue token', () => {
    const stats = emptyStats();
    countError(stats, new KubeApiError(401));
    countError(stats, new KubeApiError(401));
    countError(
      stats,
      new KubeApiError(410, { message: 'The provided continue parameter is too old to display a consistent list result.' }),
    );
    countError(stats, Object.assign(new Error('Unauthorized'), { statusCode: 401 })); // client-node's shape
    countError(stats, new TypeError('fetch failed'));
    countError(stats, 'a string');
    expect(stats.errorsSeen).toBe(6);
    expect(stats.errorKinds).toEqual({
      'KubeApiError 401': 2,
      'KubeApiError 410 (continue expired)': 1,
      'Error 401': 1,
      TypeError: 1,
      string: 1,
    });
    const terminated = new TypeError('terminated', { cause: new Error('other side closed') });
    countError(stats, terminated);
    countError(stats, new TypeError('fetch failed'));
    expect(stats.errorSamples.TypeError).toBe('fetch failed'); // the first one of a label
    expect(stats.errorSamples.string).toBe('a string');
    const fresh = emptyStats();
    countError(fresh, terminated);
    expect(fresh.errorSamples).toEqual({ TypeError: 'terminated (other side closed)' }); // with its cause
  });
});
