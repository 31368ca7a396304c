import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidObjectError, KubeApiError, ResponseTooLargeError, WatchDecodeError } from '../errors.ts';
import { apiErrorFromResponse, parseRetryAfter } from './httpErrors.ts';
import { listQuery, resourcePath, watchQuery } from './listWatchQuery.ts';
import {
  createWatchDecoder,
  DEFAULT_MAX_WATCH_LINE_BYTES,
  decodeListPage,
  decodeWatchLine,
  lineSplitter,
  parseListBody,
} from './watchDecoder.ts';

describe('lineSplitter', () => {
  it('should hold a line split across chunks until its end arrives', () => {
    const split = lineSplitter();
    expect(split('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(split(':2}\n\n')).toEqual(['{"b":2}']);
    expect(split('{"c":3}')).toEqual([]);
    expect(split('')).toEqual([]);
    expect(split('\r\n')).toEqual(['{"c":3}']);
  });
});

describe('createWatchDecoder', () => {
  const events = [
    { type: 'ADDED', object: { metadata: { name: 'été-☃-𝄞', resourceVersion: '1' } } },
    { type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '2' }, data: { k: 'ü'.repeat(50) } } },
    { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } },
    { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } },
  ];
  const bytes = new TextEncoder().encode(events.map((e) => JSON.stringify(e) + '\n').join(''));

  it('should decode the same events however the bytes are cut, multi-byte characters included', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
        const decoder = createWatchDecoder();
        const out: unknown[] = [];
        let at = 0;
        for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
          decoder.push(bytes.subarray(at, cut), (e) => {
            out.push(e);
          });
          at = cut;
        }
        decoder.end();
        expect(out).toEqual(events);
      }),
    );
  });

  it('should decode text chunks too', () => {
    const decoder = createWatchDecoder();
    const text = new TextDecoder().decode(bytes);
    const out: unknown[] = [];
    decoder.push(text.slice(0, 10), (e) => {
      out.push(e);
    });
    decoder.push(text.slice(10), (e) => {
      out.push(e);
    });
    expect(out).toEqual(events);
  });

  it('should stop when emit returns false', () => {
    const out: unknown[] = [];
    expect(
      createWatchDecoder().push(new TextDecoder().decode(bytes), (e) => {
        out.push(e);
        return out.length < 2;
      }),
    ).toBe(false);
    expect(out).toHaveLength(2);
  });

  it('should refuse a malformed line with a WatchDecodeError carrying the line', () => {
    const decoder = createWatchDecoder();
    const out: unknown[] = [];
    let error: unknown;
    try {
      decoder.push('{"type":"ADDED","object":{}}\n{"type":"MODIFIED","obj\n{"type":"ADDED","object":{}}\n', (e) => {
        out.push(e);
      });
    } catch (e) {
      error = e;
    }
    expect(out).toHaveLength(1); // the event before the bad line is not lost
    expect(error).toBeInstanceOf(WatchDecodeError);
    expect((error as WatchDecodeError).reason).toBe('MalformedWatchLine');
    expect((error as WatchDecodeError).line).toBe('{"type":"MODIFIED","obj');
  });

  it('should refuse a stream that ends inside a line or a character, and invalid UTF-8', () => {
    const cut = createWatchDecoder();
    cut.push('{"type":"ADDED"', () => undefined);
    expect(() => cut.end()).toThrow(/ended inside a line/);
    const split = createWatchDecoder();
    split.push(new Uint8Array([0xe2, 0x98]), () => undefined);
    expect(() => split.end()).toThrow(WatchDecodeError);
    expect(() => createWatchDecoder().push(new Uint8Array([0xff, 0x0a]), () => undefined)).toThrow(/invalid UTF-8/);
    const clean = createWatchDecoder();
    clean.push('\n \n', () => undefined);
    expect(() => clean.end()).not.toThrow();
  });
});

describe('createWatchDecoder line limit', () => {
  const event = (name: string) => JSON.stringify({ type: 'ADDED', object: { metadata: { name } } });
  const exact = event('x'.repeat(100));
  const max = new TextEncoder().encode(exact).length;
  const longer = event('x'.repeat(101));
  /** Pushes `text` cut at `cuts`, as bytes or text; the events decoded, or the error thrown. */
  const feed = (text: string, cuts: number[], asBytes: boolean, maxLineBytes = max) => {
    const decoder = createWatchDecoder({ maxLineBytes });
    const data = asBytes ? new TextEncoder().encode(text) : text;
    const out: unknown[] = [];
    let at = 0;
    try {
      for (const cut of [...cuts.filter((c) => c < data.length).sort((a, b) => a - b), data.length]) {
        decoder.push(data.slice(at, cut), (e) => {
          out.push(e);
        });
        at = cut;
      }
      decoder.end();
      return out;
    } catch (e) {
      return e;
    }
  };

  it('should accept lines of exactly the limit and refuse a longer one, however the stream is cut', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 3 * max }), { maxLength: 12 }), fc.boolean(), (cuts, asBytes) => {
        expect(feed(`${exact}\n${exact}\n`, cuts, asBytes)).toHaveLength(2);
        const refused = feed(`${exact}\n${longer}\n${exact}\n`, cuts, asBytes);
        expect(refused).toBeInstanceOf(ResponseTooLargeError);
        expect(refused).toMatchObject({ part: 'watchLine', limitBytes: max, reason: 'ResponseTooLarge' });
      }),
    );
  });

  it('should refuse a line that never ends as soon as it passes the limit, before decoding it', () => {
    const decoder = createWatchDecoder({ maxLineBytes: 1000 });
    const chunk = new Uint8Array(300).fill(0x61);
    let pushed = 0;
    expect(() => {
      for (let i = 0; i < 100; i++) {
        pushed++;
        decoder.push(chunk, () => undefined);
      }
    }).toThrow(ResponseTooLargeError);
    expect(pushed).toBe(4); // 1,200 bytes > 1,000
  });

  it('should count bytes, not characters, in byte chunks', () => {
    const wide = event('é'.repeat(60)); // 60 characters, 120 bytes
    expect(feed(`${wide}\n`, [], true, wide.length + 59)).toBeInstanceOf(ResponseTooLargeError);
    expect(feed(`${wide}\n`, [], false, wide.length)).toHaveLength(1); // text: code units
  });

  it('should refuse lines over 16 MiB by default', () => {
    expect(DEFAULT_MAX_WATCH_LINE_BYTES).toBe(16 * 1024 * 1024);
    const decoder = createWatchDecoder();
    const mib = 'a'.repeat(1024 * 1024);
    expect(() => {
      for (let i = 0; i < 17; i++) decoder.push(mib, () => undefined);
    }).toThrow(ResponseTooLargeError);
  });
});

describe('createWatchDecoder, UTF-8 across chunk boundaries', () => {
  const eventsOf = (texts: string[]) => texts.map((t) => ({ type: 'ADDED', object: { metadata: { name: t } } }));
  const wire = (texts: string[]) =>
    new TextEncoder().encode(
      eventsOf(texts)
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );

  it('should decode any text however the bytes are cut, one byte at a time included', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (texts, cuts) => {
        const bytes = wire(texts);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const decoder = createWatchDecoder();
        const out: unknown[] = [];
        let from = 0;
        for (const to of [...at, bytes.length]) {
          decoder.push(bytes.subarray(from, to), (e) => {
            out.push(e);
          });
          from = to;
        }
        decoder.end();
        expect(out).toEqual(eventsOf(texts));
      }),
    );
    const bytes = wire(['é😀字', '\u00ff']);
    const decoder = createWatchDecoder();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i++)
      decoder.push(bytes.subarray(i, i + 1), (e) => {
        out.push(e);
      });
    decoder.end();
    expect(out).toEqual(eventsOf(['é😀字', '\u00ff']));
  });

  it('should drop a byte-order mark at the start only, and refuse bytes that are not UTF-8 wherever they are cut', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const body = wire(['a\ufeffb']);
    const decoder = createWatchDecoder();
    const out: unknown[] = [];
    decoder.push(bom.subarray(0, 2), (e) => {
      out.push(e);
    });
    decoder.push(new Uint8Array([...bom.subarray(2), ...body.subarray(0, 30)]), (e) => {
      out.push(e);
    });
    decoder.push(body.subarray(30), (e) => {
      out.push(e);
    });
    expect(out).toEqual(eventsOf(['a\ufeffb'])); // the one inside a name is kept
    const badContinuation = createWatchDecoder();
    badContinuation.push(new Uint8Array([0x7b, 0xe2]), () => undefined);
    expect(() => badContinuation.push(new Uint8Array([0x41, 0x0a]), () => undefined)).toThrow(/invalid UTF-8/);
    expect(() => createWatchDecoder().push(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80]), () => undefined)).toThrow(WatchDecodeError);
  });
});

describe('decodeWatchLine', () => {
  it('should decode events and refuse shapes that are not watch events', () => {
    expect(decodeWatchLine('{"type":"ADDED","object":{"metadata":{"name":"a"}}}').type).toBe('ADDED');
    expect(() => decodeWatchLine('{"type":"MODIFIED","object":{"kind":')).toThrow(WatchDecodeError);
    expect(() => decodeWatchLine('{"type":"ADDED"}')).toThrow(/needs "type" and an "object"/);
    expect(() => decodeWatchLine('{"type":"ADDED","object":[1]}')).toThrow(WatchDecodeError);
    expect(() => decodeWatchLine('[1,2]')).toThrow(WatchDecodeError);
    expect(() => decodeWatchLine('null')).toThrow(WatchDecodeError);
  });
});

describe('decodeListPage', () => {
  it('should accept a list and refuse bodies that are not lists', () => {
    expect(parseListBody('{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}}]}').items).toHaveLength(
      1,
    );
    expect(() => decodeListPage({ kind: 'PodList' })).toThrow(InvalidObjectError);
    expect(() => decodeListPage({ items: [1] })).toThrow(/item 0 is not an object/);
    expect(() => decodeListPage({ items: [], metadata: 'x' })).toThrow(InvalidObjectError);
    expect(() => parseListBody('<html>')).toThrow(/not JSON/);
  });
});

describe('decodeListPage, items of a typed list', () => {
  it("should give items without apiVersion and kind the list's, as a watch event's object has them", () => {
    // kube-apiserver's JSON PodList: items carry neither (a watch event's object carries both).
    const page = parseListBody(
      JSON.stringify({
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '5' },
        items: [{ metadata: { name: 'a' } }, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' } }],
      }),
    );
    expect(page.items.map((p) => [p.apiVersion, p.kind, p.metadata?.name])).toEqual([
      ['v1', 'Pod', 'a'],
      ['v1', 'Pod', 'b'],
    ]);
    const deployments = decodeListPage({ kind: 'DeploymentList', apiVersion: 'apps/v1', items: [{ metadata: { name: 'd' } }] });
    expect(deployments.items[0]).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } });
  });

  it('should leave items alone where the list does not say what they are', () => {
    const items = () => [{ metadata: { name: 'a' } }, { kind: 'Pod', metadata: { name: 'b' } }];
    for (const list of [
      { kind: 'List', apiVersion: 'v1', items: items() }, // a generic List holds any kind
      { kind: 'PodList', items: items() },
      { apiVersion: 'v1', items: items() },
      { kind: 'PodList', apiVersion: 'v1', items: [{ kind: 'Pod', metadata: { name: 'b' } }] }, // declares one: kept as it is
    ])
      expect(decodeListPage(list).items).toEqual(list.items.map((i) => ({ ...i })));
  });
});

describe('apiErrorFromResponse', () => {
  it('should read a Status body, or plain text, and Retry-After', () => {
    const gone = apiErrorFromResponse(410, JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }), null);
    expect(gone).toBeInstanceOf(KubeApiError);
    expect([gone.code, gone.reason, gone.message, gone.isGone]).toEqual([410, 'Expired', 'too old', true]);
    const limited = apiErrorFromResponse(429, 'Too many requests, please try again later.\n', '3');
    expect([limited.reason, limited.message, limited.retryAfterSeconds]).toEqual([
      'TooManyRequests',
      'Too many requests, please try again later.',
      3,
    ]);
    const timeout = apiErrorFromResponse(
      504,
      JSON.stringify({ kind: 'Status', code: 504, reason: 'Timeout', details: { retryAfterSeconds: 1 } }),
      undefined,
    );
    expect(timeout.retryAfterSeconds).toBe(1);
    const empty = apiErrorFromResponse(401, '', undefined);
    expect([empty.reason, empty.message]).toEqual(['Unauthorized', 'the server answered 401 Unauthorized']);
  });

  it('should read Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(['2'], now)).toBe(2);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('query strings and paths', () => {
  it('should carry only the options that are set', () => {
    expect(listQuery({ limit: 500, continue: 'a b', labelSelector: 'app=web' })).toBe('?limit=500&continue=a%20b&labelSelector=app%3Dweb');
    expect(watchQuery({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 300 })).toBe(
      '?watch=true&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=300',
    );
    expect(watchQuery({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '' })).toBe(
      '?watch=true&resourceVersion=&resourceVersionMatch=NotOlderThan&sendInitialEvents=true',
    );
  });

  it('should build collection paths for core, grouped and cluster-scoped resources', () => {
    expect(resourcePath({ group: '', version: 'v1', resource: 'pods', namespaced: true })).toBe('/api/v1/pods');
    expect(resourcePath({ group: '', version: 'v1', resource: 'pods', namespaced: true }, 'default')).toBe(
      '/api/v1/namespaces/default/pods',
    );
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true }, 'web')).toBe(
      '/apis/apps/v1/namespaces/web/deployments',
    );
    expect(resourcePath({ group: '', version: 'v1', resource: 'nodes', namespaced: false })).toBe('/api/v1/nodes');
    expect(() => resourcePath({ group: '', version: 'v1', resource: 'nodes', namespaced: false }, 'default')).toThrow(/cluster-scoped/);
  });
});
