import { describe, expect, it } from '@jest/globals';
import { RequestTimeoutError, type Delta } from '@rxinformer/core';
import { createStore } from '@rxinformer/core/store';
import { eventLine, formatAge, podRows, statusLine, type Pod } from './podView.ts';
import { pod } from '@rxinformer/testing';

const T0 = Date.parse('2024-01-01T00:00:00Z');

describe('podRows', () => {
  it('should give one row per cached pod, sorted by namespace then name, with phase and age', () => {
    const store = createStore<Pod>()
      .set('web/b', pod('b', { namespace: 'web', phase: 'Running', creationTimestamp: '2024-01-01T00:00:00Z' }))
      .set('default/z', pod('z', { namespace: 'default', phase: 'Pending', creationTimestamp: '2024-01-01T00:00:30Z' }))
      .set('web/a', pod('a', { namespace: 'web', creationTimestamp: '2024-01-01T00:00:00Z' }));
    const rows = podRows(store, T0 + 90_000);
    expect(rows.map(({ key, namespace, name, phase, age }) => ({ key, namespace, name, phase, age }))).toEqual([
      { key: 'default/z', namespace: 'default', name: 'z', phase: 'Pending', age: '60s' },
      { key: 'web/a', namespace: 'web', name: 'a', phase: 'Unknown', age: '90s' },
      { key: 'web/b', namespace: 'web', name: 'b', phase: 'Running', age: '90s' },
    ]);
    expect(rows[2].object).toBe(store.get('web/b'));
  });

  it('should give no rows for an empty store', () => {
    expect(podRows(createStore<Pod>(), T0)).toEqual([]);
  });
});

describe('formatAge', () => {
  it.each([
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [185, '3m5s'],
    [599, '9m59s'],
    [600, '10m'],
    [179 * 60, '179m'],
    [3 * 3600, '3h'],
    [5 * 3600 + 4 * 60, '5h4m'],
    [8 * 3600 + 59 * 60, '8h'],
    [47 * 3600, '47h'],
    [2 * 86400, '2d'],
    [3 * 86400 + 5 * 3600, '3d5h'],
    [8 * 86400 + 5 * 3600, '8d'],
    [729 * 86400, '729d'],
    [730 * 86400, '2y'],
    [(3 * 365 + 10) * 86400, '3y10d'],
    [9 * 365 * 86400, '9y'],
  ])('should write %i seconds as %s, like kubectl', (seconds, expected) => {
    expect(formatAge('2024-01-01T00:00:00Z', T0 + seconds * 1000)).toBe(expected);
  });

  it('should say <unknown> without a valid timestamp and 0s for a timestamp in the future', () => {
    expect(formatAge(undefined, T0)).toBe('<unknown>');
    expect(formatAge('not a date', T0)).toBe('<unknown>');
    expect(formatAge(new Date(T0 + 5000), T0)).toBe('0s');
  });
});

describe('statusLine', () => {
  it('should show phase, sync, resource version and relists', () => {
    expect(statusLine({ phase: 'watching', hasSynced: true, relistCount: 1, lastSyncResourceVersion: '42' })).toBe(
      'watching · synced · rv 42 · 1 relist',
    );
    expect(statusLine({ phase: 'listing', hasSynced: false, relistCount: 0 })).toBe('listing · not synced · 0 relists');
  });

  it('should show the backoff delay and the last error', () => {
    expect(statusLine({ phase: 'backingOff', hasSynced: true, relistCount: 2, backoffMs: 812.4, lastError: new Error('HTTP 503') })).toBe(
      'backingOff · synced · 2 relists · retry in 812 ms · last error: Error: HTTP 503',
    );
  });

  it('should show a watch not open yet as connecting, with the error that says why', () => {
    const error = new RequestTimeoutError('/api/v1/pods?watch=true', 10_000, { reason: 'WatchNotOpened' });
    expect(statusLine({ phase: 'connecting', hasSynced: true, relistCount: 0, lastError: error })).toBe(
      'connecting · synced · 0 relists · last error: RequestTimeoutError: the watch /api/v1/pods?watch=true did not open within 10000 ms (no response headers)',
    );
  });
});

describe('eventLine', () => {
  const store = createStore<Pod>();
  it('should name the delta type, the key and the phase, at the local time given', () => {
    const at = new Date(2024, 0, 1, 9, 5, 7).getTime();
    const delta: Delta<Pod> = {
      type: 'Updated',
      key: 'web/a',
      object: pod('a', { namespace: 'web', phase: 'Failed', creationTimestamp: '2024-01-01T00:00:00Z' }),
      oldObject: pod('a', { namespace: 'web', phase: 'Running', creationTimestamp: '2024-01-01T00:00:00Z' }),
      store,
    };
    expect(eventLine(delta, at)).toEqual({ time: '09:05:07', type: 'Updated', text: 'Updated web/a (Failed)' });
  });

  it('should flag a tombstone and omit a missing phase', () => {
    expect(
      eventLine(
        {
          type: 'Deleted',
          key: 'web/a',
          deleted: {
            key: 'web/a',
            lastKnown: pod('a', { namespace: 'web', phase: 'Running', creationTimestamp: '2024-01-01T00:00:00Z' }),
            finalStateUnknown: true,
          },
          store,
        },
        T0,
      ).text,
    ).toBe('Deleted web/a (final state unknown)');
    expect(
      eventLine(
        {
          type: 'Added',
          key: 'web/b',
          object: pod('b', { namespace: 'web', creationTimestamp: '2024-01-01T00:00:00Z' }),
          isInInitialList: false,
          store,
        },
        T0,
      ).text,
    ).toBe('Added web/b');
  });
});
