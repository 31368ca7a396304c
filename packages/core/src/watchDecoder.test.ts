import { describe, expect, it } from '@jest/globals';
import { InvalidObjectError, KubeApiError, WatchDecodeError } from './errors.ts';
import { apiErrorFromResponse } from './httpErrors.ts';
import { listQuery, watchQuery } from './listWatchQuery.ts';
import { decodeListPage, decodeWatchLine, lineSplitter } from './watchDecoder.ts';

describe('lineSplitter', () => {
  it('should hold a line split across chunks until its end arrives', () => {
    const split = lineSplitter();
    expect(split('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(split(':2}\n\n')).toEqual(['{"b":2}']);
    expect(split('{"c":3}')).toEqual([]);
    expect(split('\n')).toEqual(['{"c":3}']);
  });
});

describe('decodeWatchLine', () => {
  it('should decode events and refuse malformed lines with a typed error', () => {
    expect(decodeWatchLine('{"type":"ADDED","object":{"metadata":{"name":"a"}}}').type).toBe('ADDED');
    expect(() => decodeWatchLine('{"type":"MODIFIED","object":{"kind":')).toThrow(WatchDecodeError);
    expect(() => decodeWatchLine('{"type":"ADDED"}')).toThrow(/needs "type" and an "object"/);
    expect(() => decodeListPage({ kind: 'PodList' })).toThrow(InvalidObjectError);
  });
});

describe('apiErrorFromResponse', () => {
  it('should read a Status body, or plain text, and Retry-After', () => {
    const gone = apiErrorFromResponse(410, JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }), null);
    expect(gone).toBeInstanceOf(KubeApiError);
    expect([gone.code, gone.reason, gone.message]).toEqual([410, 'Expired', 'too old']);
    const limited = apiErrorFromResponse(429, 'Too many requests, please try again later.\n', '3');
    expect([limited.reason, limited.message, limited.retryAfterSeconds]).toEqual(['TooManyRequests', 'Too many requests, please try again later.', 3]);
  });
});

describe('query strings', () => {
  it('should carry only the options that are set', () => {
    expect(listQuery({ limit: 500, continue: 'a b', labelSelector: 'app=web' })).toBe('?limit=500&continue=a%20b&labelSelector=app%3Dweb');
    expect(watchQuery({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 300 })).toBe('?watch=true&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=300');
    expect(watchQuery({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '' })).toBe('?watch=true&resourceVersion=&resourceVersionMatch=NotOlderThan&sendInitialEvents=true');
  });
});
