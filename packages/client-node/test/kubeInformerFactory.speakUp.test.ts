/**
 * The KubeConfig factory says why it has not synced: `waitForCacheSync` with a time limit names
 * each informer not synced with its last error (a refused connection, a resource the server does
 * not serve), the logger tells of it once, and a bad selector throws at `informerFor`.
 */
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CacheSyncTimeoutError, InvalidOptionsError, KubeApiError, NetworkError, type InformerLogger } from '@rxinformer/core';
import { checkSelectors, parseLabelSelector, type LabelSelectorError } from '@rxinformer/core/labels';
import { serverKinds } from '@rxinformer/testing/servers';
import { createKubeInformerFactory, defineResource, pods } from '../src/index.ts';
import { until } from '@rxinformer/testing';
import { plainKubeConfig } from './rawServer.ts';
import { fastReflector as reflector, serverWithKit } from './simHarness.ts';

/** What the factory's logger was told, as `level: message`. */
function recordingLogger(): InformerLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info: ${m}`), warn: (m) => lines.push(`warn: ${m}`), error: (m) => lines.push(`error: ${m}`) };
}

/** What `promise` rejected with (it must reject). */
const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

describe('createKubeInformerFactory against a server nobody listens on', () => {
  it('should reject waitForCacheSync after its time limit naming the refused connection, told once to the logger', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = s.address() as AddressInfo;
        s.close(() => resolve(free));
      });
    });
    const logger = recordingLogger();
    const factory = createKubeInformerFactory(plainKubeConfig(`http://127.0.0.1:${port}`, 't'), { logger, namespace: 'default' });
    try {
      factory.informerFor(pods, { reflector });
      await expect(factory.waitForCacheSync()).rejects.toThrow('call start()');
      factory.start();
      const error = await rejectionOf(factory.waitForCacheSync({ timeoutMs: 1000 }));
      expect(error).toBeInstanceOf(CacheSyncTimeoutError);
      const [unsynced, ...others] = (error as CacheSyncTimeoutError).unsynced;
      expect(others).toEqual([]);
      expect(unsynced).toMatchObject({ resource: 'pods', scope: { namespace: 'default' } });
      expect(unsynced.lastError).toBeInstanceOf(NetworkError);
      expect((unsynced.lastError as NetworkError).reason).toBe('ConnectionRefused');
      expect((error as Error).message).toMatch(
        /^caches not synced within 1000 ms; not synced: pods \(namespace default\) \w+, last error: NetworkError: /,
      );
      const told = logger.lines.filter((l) => l.startsWith('warn: informer pods (namespace default)'));
      expect(told).toHaveLength(1); // dozens of retries, one line
    } finally {
      await factory.close();
    }
  });
});

describe.each(serverKinds())('createKubeInformerFactory speaking up against the %s server', (kind) => {
  const env = serverWithKit(kind);

  it('should name only the informer of a resource the server does not serve, with its 404, as an error told once', async () => {
    const ns = await env.server.namespace('speak');
    const logger = recordingLogger();
    const { factory } = env.kit.open({ namespace: ns, logger });
    const widgets = defineResource({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    const podInformer = factory.informerFor(pods, { reflector });
    factory.informerFor(widgets, { reflector });
    factory.start();
    await until(() => podInformer.hasSynced(), { timeoutMs: 30_000 });
    const error = (await rejectionOf(factory.waitForCacheSync({ timeoutMs: 500 }))) as CacheSyncTimeoutError;
    expect(error).toBeInstanceOf(CacheSyncTimeoutError);
    expect(error.unsynced.map((u) => u.resource)).toEqual(['widgets.example.com']);
    expect(error.unsynced[0].lastError).toBeInstanceOf(KubeApiError);
    expect((error.unsynced[0].lastError as KubeApiError).code).toBe(404);
    expect(logger.lines).toContain(`info: informer pods (namespace ${ns}): synced`);
    expect(logger.lines.filter((l) => l.startsWith(`error: informer widgets.example.com (namespace ${ns}): backing off`))).toHaveLength(1);
  });

  // The real server's parsers are the reference; the simulator is held to the same verdicts.
  it('should accept exactly the selectors the server accepts', async () => {
    const fields = [
      'metadata.name=x',
      'metadata.name==x',
      'metadata.name!=x',
      ',metadata.name=x,,',
      'metadata.name=x\\,y\\=z',
      'metadata.name= x',
    ];
    const badFields = ['metadata.name', 'metadata.name=x=y', 'metadata.name=x\\q', 'metadata.name=x,y'];
    const labels = ['a in ()', 'a=b', 'a==b', '!a', 'a', 'a in (x,y)', 'a notin (x)', 'a>1', ' a = b , c '];
    const badLabels = ['replicate in (a', 'a=b,', 'a in (x', 'a b', 'a=b c', '-a=b'];
    const cases = [
      ...[...fields, ...badFields].map((f) => ({ query: `fieldSelector=${encodeURIComponent(f)}`, selector: { fieldSelector: f } })),
      ...[...labels, ...badLabels].map((l) => ({ query: `labelSelector=${encodeURIComponent(l)}`, selector: { labelSelector: l } })),
    ];
    const verdicts = await Promise.all(
      cases.map(async ({ query, selector }) => {
        const server400 = (await env.server.api.call('GET', `/api/v1/pods?limit=1&${query}`)).status === 400;
        let ours400 = false;
        try {
          checkSelectors(selector);
        } catch {
          ours400 = true;
        }
        return { selector, server400, ours400 };
      }),
    );
    expect(verdicts.filter((v) => v.server400 !== v.ours400)).toEqual([]);
    expect(verdicts.filter((v) => v.server400).length).toBe(badFields.length + badLabels.length);
  });

  // kube-apiserver's label selector parser (apimachinery's labels.Parse) is the reference: core's
  // accepts what it accepts and refuses what it refuses, in its words (the simulator answers them).
  it('should accept exactly the label selectors the server accepts, and word refusals as it does', async () => {
    const accepted = [
      'app in ()', // `app in ("")`: accepted by kube-apiserver 1.36.3, as by labels.Parse
      'app notin ()',
      'app in (a,)',
      'app in (,)',
      'app=',
      'app==',
      'app=,b',
      ' ',
      '\t\r\n',
      'a in(b)',
      'in in (in,notin)',
      'a>01',
      'k'.repeat(63),
      `a=${'v'.repeat(63)}`,
      `${'p'.repeat(253)}/a`,
      'a=b \0junk', // a NUL where a token would start ends the selector
      '\0a=b',
      'a\0',
      'a in (b\0)',
    ];
    const refused = [
      'in (a)',
      '!app=x',
      'a,',
      ',a',
      'a,,b',
      '\v',
      'a=b\0c',
      'k'.repeat(64),
      `a=${'v'.repeat(64)}`,
      `${'p'.repeat(254)}/a`,
      'A/b',
      '/a',
      'a/',
      'a/b/c',
      '-a',
      'a_',
      'a=é',
      'a>',
      'a>-1',
      'a>9223372036854775808',
      'a in (b c)',
      'a=b=c',
      '!a in (b)',
      'a in (-b,-a)',
      'a notin x',
      '=',
    ];
    const verdicts = await Promise.all(
      [...accepted, ...refused].map(async (selector) => {
        const answer = await env.server.api.call('GET', `/api/v1/pods?limit=1&labelSelector=${encodeURIComponent(selector)}`);
        let ours = 'accepted';
        try {
          parseLabelSelector(selector);
        } catch (e) {
          ours = (e as LabelSelectorError).detail;
        }
        return {
          selector,
          server: answer.status === 200 ? 'accepted' : `${answer.status} ${answer.body?.message}`,
          ours: ours === 'accepted' ? ours : `400 ${ours}`,
        };
      }),
    );
    expect(verdicts.filter((v) => v.server !== v.ours)).toEqual([]);
    expect(verdicts.filter((v) => v.server !== 'accepted').map((v) => v.selector)).toEqual(refused);
  });

  it('should throw InvalidOptionsError at informerFor for a selector the server would refuse, and send nothing', () => {
    const { factory, transport } = env.kit.open();
    expect(() => factory.informerFor(pods, { labelSelector: 'replicate in (a' })).toThrow(InvalidOptionsError);
    expect(() => factory.informerFor(pods, { fieldSelector: 'spec.nodeName' })).toThrow(InvalidOptionsError);
    factory.start();
    expect(transport.paths).toEqual([]);
  });
});
