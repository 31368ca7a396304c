import { describe, expect, it } from '@jest/globals';
import { firstValueFrom } from 'rxjs';
import { fetchListerWatcher } from './http/fetchListerWatcher.ts';
import { httpListerWatcher } from './http/httpListerWatcher.ts';
import { resourcePath } from './http/listWatchQuery.ts';
import { leaderElection } from './leader-election/leaderElection.ts';
import { leaseClient } from './leader-election/leaseClient.ts';
import { checkRequestPath, InvalidPathSegmentError, pathSegment, pathSegmentError, pathSegmentProblems } from './pathSegment.ts';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

/** What `fn` threw (it must throw). */
function thrown(fn: () => unknown): InvalidPathSegmentError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidPathSegmentError);
    return e as InvalidPathSegmentError;
  }
  throw new Error('expected a throw');
}

describe('pathSegment', () => {
  it("should refuse . and .., / and %, in kube-apiserver's words", () => {
    expect(pathSegmentProblems('.')).toEqual(["may not be '.'"]);
    expect(pathSegmentProblems('..')).toEqual(["may not be '..'"]);
    expect(pathSegmentProblems('a/b')).toEqual(["may not contain '/'"]);
    expect(pathSegmentProblems('%2e%2e')).toEqual(["may not contain '%'"]);
    expect(pathSegmentProblems('a%/b')).toEqual(["may not contain '/'", "may not contain '%'"]);
    const e = thrown(() => pathSegment('name', '..'));
    expect([e.reason, e.what, e.value, e.problems, e.message]).toEqual([
      'InvalidPathSegment',
      'name',
      '..',
      ["may not be '..'"],
      `invalid name "..": may not be '..'`,
    ]);
    expect(thrown(() => pathSegment('namespace', '')).problems).toEqual(['may not be empty']);
    expect(thrown(() => pathSegment('name', 42)).problems).toEqual(['must be a string']);
    expect(pathSegmentError('name', 'x')).toBeUndefined();
  });

  it('should accept and encode every other name, dots inside one included', () => {
    for (const name of ['a', '.a', 'a.', '...', 'a..b', 'x.y.z'])
      expect([name, pathSegment('name', name)]).toEqual([name, encodeURIComponent(name)]);
    expect(pathSegment('name', 'a b?#')).toBe('a%20b%3F%23');
  });
});

describe('checkRequestPath', () => {
  it('should refuse a path with a segment a URL parser would resolve, %2e spellings included', () => {
    for (const path of ['/api/v1/namespaces/a/configmaps/..', '/api/v1/namespaces/./configmaps', '/a/%2e%2E/b', '/a/.%2e', '/a/%2e'])
      expect(thrown(() => checkRequestPath(path)).what).toBe('path');
    for (const path of ['/api/v1/namespaces/a/configmaps/a..b', '/a/...', '/a/b?x=/../c', '/api/v1/namespaces/a/configmaps/.a'])
      expect(() => checkRequestPath(path)).not.toThrow();
  });

  it('should refuse what a URL parser drops or reads as a separator: .\\t. is .. to fetch', () => {
    const base = '/api/v1/namespaces/a/configmaps';
    for (const path of [`${base}/.\t.`, `${base}/.\n.`, `${base}/.\r.`, `${base}\\..`, `${base}/.. `, `${base}/..\u0000`, `${base}/a b`]) {
      const error = thrown(() => checkRequestPath(path));
      expect(error.what).toBe('path');
      expect(error.message).toContain('URL parser');
    }
    // What they were about: each of these is the namespace to a WHATWG URL parser.
    for (const path of [`${base}/.\t.`, `${base}\\..`, `${base}/.. `])
      expect(new URL(`http://h${path}`).pathname).toBe('/api/v1/namespaces/a/');
    expect(() => checkRequestPath(`${base}/a%20b?labelSelector=a in (b, c)`)).not.toThrow(); // the query is not looked at
  });
});

describe('the path builders', () => {
  it('should refuse a namespace or descriptor part that is not one path segment', () => {
    expect(resourcePath(configMaps, 'a')).toBe('/api/v1/namespaces/a/configmaps');
    for (const ns of ['.', '..', 'a/b', 'a%b']) expect(thrown(() => resourcePath(configMaps, ns)).what).toBe('namespace');
    expect(thrown(() => resourcePath({ ...configMaps, group: '..' })).what).toBe('group');
    expect(thrown(() => resourcePath({ ...configMaps, resource: '.' })).what).toBe('resource');
  });

  it('should refuse to build a ListerWatcher of namespace .. or a path with a dot segment, sending nothing', () => {
    let sent = 0;
    const fetch = (() => {
      sent++;
      return Promise.reject(new Error('unreachable'));
    }) as typeof globalThis.fetch;
    expect(thrown(() => fetchListerWatcher({ baseUrl: 'http://x', resource: configMaps, namespace: '..', fetch })).what).toBe('namespace');
    expect(thrown(() => fetchListerWatcher({ baseUrl: 'http://x', path: '/api/v1/namespaces/../configmaps', fetch })).what).toBe('path');
    expect(thrown(() => httpListerWatcher(() => Promise.reject(new Error('unreachable')), { path: '/api/v1/./pods' })).what).toBe('path');
    expect(sent).toBe(0);
  });

  it('should fail a Lease call on a namespace or name that is not one path segment, sending nothing', async () => {
    const paths: string[] = [];
    const api = {
      request: ({ path }: { path: string }) => {
        paths.push(path);
        return Promise.reject(new Error('unreachable'));
      },
    };
    const client = leaseClient(api);
    await expect(firstValueFrom(client.get('..', 'ctl'))).rejects.toThrow(InvalidPathSegmentError);
    await expect(firstValueFrom(client.get('default', '.'))).rejects.toThrow(InvalidPathSegmentError);
    const lease = { metadata: { namespace: 'default', name: 'a/b', resourceVersion: '1' } };
    await expect(firstValueFrom(client.update(lease))).rejects.toThrow(`invalid name "a/b": may not contain '/'`);
    await expect(firstValueFrom(client.create({ metadata: { namespace: '..', name: 'x' } }))).rejects.toThrow(InvalidPathSegmentError);
    expect(paths).toEqual([]);
    const options = { client: api, identity: 'me' };
    expect(thrown(() => leaderElection({ ...options, namespace: '..', name: 'ctl' })).what).toBe('namespace');
    expect(thrown(() => leaderElection({ ...options, namespace: 'default', name: '.' })).what).toBe('name');
  });
});
