import { describe, expect, it } from '@jest/globals';
import { KubeApiError, NetworkError, RequestTimeoutError } from '../errors.ts';
import { statusLogger, type InformerLogger } from './statusLogger.ts';
import type { ReflectorStatus } from '../types.ts';

const at = (phase: ReflectorStatus['phase'], more: Partial<ReflectorStatus> = {}): ReflectorStatus => ({
  phase,
  relistCount: 0,
  hasSynced: false,
  ...more,
});

function feed(statuses: ReflectorStatus[], logger?: InformerLogger): string[] {
  const lines: string[] = [];
  const tell = statusLogger(
    logger ?? {
      info: (m, d) => lines.push(`info ${m} [${d.resource} ${d.status.phase}]`),
      warn: (m) => lines.push(`warn ${m}`),
      error: (m) => lines.push(`error ${m}`),
    },
    'informer pods',
    { resource: 'pods', scope: {} },
  );
  for (const s of statuses) tell(s);
  return lines;
}

describe('statusLogger', () => {
  const refused = () => new NetworkError('ConnectionRefused', 'connect ECONNREFUSED 127.0.0.1:6443');
  it('should tell each distinct error once while retrying, warn for a transient one and error for a lasting one', () => {
    const lines = feed([
      at('stopped'),
      at('listing'),
      at('backingOff', { lastError: refused(), backoffMs: 800 }),
      at('listing', { lastError: refused() }),
      at('backingOff', { lastError: refused(), backoffMs: 1600 }), // the same error again: not told
      at('backingOff', { lastError: new KubeApiError(400, { message: 'unable to parse requirement' }), backoffMs: 3200 }),
      at('listing', { lastError: new KubeApiError(400, { message: 'unable to parse requirement' }) }),
    ]);
    expect(lines).toEqual([
      'info informer pods: listing [pods listing]',
      'warn informer pods: backing off 800 ms after NetworkError: connect ECONNREFUSED 127.0.0.1:6443',
      'error informer pods: backing off 3200 ms after KubeApiError: unable to parse requirement',
    ]);
  });

  it('should tell of recovery once, the first sync once, and an error met again after recovery', () => {
    const lines = feed([
      at('listing'),
      at('backingOff', { lastError: refused(), backoffMs: 800 }),
      at('listing', { lastError: refused() }),
      at('watching', { hasSynced: true }),
      at('listing', { hasSynced: true, relistCount: 1 }), // a relist is not a start: not told
      at('backingOff', { hasSynced: true, lastError: refused(), backoffMs: 800 }),
      at('watching', { hasSynced: true }),
      at('stopped', { hasSynced: true }),
      at('listing', { hasSynced: true }), // started again
    ]);
    expect(lines).toEqual([
      'info informer pods: listing [pods listing]',
      'warn informer pods: backing off 800 ms after NetworkError: connect ECONNREFUSED 127.0.0.1:6443',
      'info informer pods: recovered [pods watching]',
      'info informer pods: synced [pods watching]',
      'warn informer pods: backing off 800 ms after NetworkError: connect ECONNREFUSED 127.0.0.1:6443',
      'info informer pods: recovered [pods watching]',
      'info informer pods: listing [pods listing]',
    ]);
  });

  it('should tell of a watch that does not open once, and of recovery only once it is watching without the error', () => {
    const notOpened = () => new RequestTimeoutError('/api/v1/pods?watch=true', 10_000, { reason: 'WatchNotOpened', hint: 'use HTTP/2' });
    const lines = feed([
      at('listing'),
      at('connecting', { hasSynced: true }),
      at('backingOff', { hasSynced: true, lastError: notOpened(), backoffMs: 800 }),
      at('connecting', { hasSynced: true, lastError: notOpened() }), // still not open: nothing new to tell
      at('backingOff', { hasSynced: true, lastError: notOpened(), backoffMs: 1600 }),
      at('connecting', { hasSynced: true, lastError: notOpened() }),
      at('watching', { hasSynced: true, lastError: notOpened() }), // open, the error kept until an event
      at('watching', { hasSynced: true }),
    ]);
    expect(lines).toEqual([
      'info informer pods: listing [pods listing]',
      'info informer pods: synced [pods connecting]',
      'warn informer pods: backing off 800 ms after RequestTimeoutError: the watch /api/v1/pods?watch=true did not open within 10000 ms (no response headers): use HTTP/2',
      'info informer pods: recovered [pods watching]',
    ]);
  });

  it('should go on telling after a logger method threw', () => {
    let calls = 0;
    const lines = feed([at('listing'), at('watching', { hasSynced: true })], {
      info: () => {
        calls++;
        throw new Error('log file full');
      },
    });
    expect([lines, calls]).toEqual([[], 2]);
  });

  it('should leave out the levels a logger has not, and tell an error that is not a retry as such', () => {
    const warnings: string[] = [];
    feed([at('listing'), at('watching', { hasSynced: true, lastError: new Error('watch event is not an object; skipped') })], {
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toEqual(['informer pods: error: Error: watch event is not an object; skipped']);
  });
});
