import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createSharedInformer,
  fetchListerWatcher,
  ListTooLargeError,
  type KubeObject,
  type ListerWatcher,
  type SharedInformer,
} from '@rxinformer/core';
import { UnexpectedTypeError } from '@rxinformer/core/reflector';
import { createKubeInformerFactory, createKubeTransport, kubeConfigListerWatcher, pods, type KubeTransport } from '../src/index.ts';
import { serverKubeConfig, waitFor } from './simHarness.ts';
import { PAGED } from '@rxinformer/testing';

// The informer against a small node:http server that misbehaves in ways the simulator cannot:
// continue tokens forever, objects of another kind. Both HTTP ListerWatchers (fetch; KubeConfig
// over undici) see the same server.
type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;
let server: Server;
let base: string;
let handler: Handler = (_req, res) => res.end();
beforeAll(async () => {
  server = createServer((req, res) => handler(req, res, new URL(req.url ?? '/', 'http://x')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const transports: KubeTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
});
const makers: [string, () => ListerWatcher<KubeObject>][] = [
  ['fetchListerWatcher', () => fetchListerWatcher({ baseUrl: base, resource: pods })],
  [
    'kubeConfigListerWatcher',
    () => {
      const transport = createKubeTransport(serverKubeConfig(base));
      transports.push(transport);
      return kubeConfigListerWatcher(serverKubeConfig(base), { resource: pods, transport });
    },
  ],
];

const podObject = (name: string, rv = '5'): KubeObject => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv },
});
const listBody = (items: KubeObject[], token?: string) =>
  JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '10', ...(token && { continue: token }) }, items });

describe.each(makers)('an informer over %s', (_name, makeLw) => {
  it('should stop a list at maxListPages when the server hands out continue tokens forever, the prefetch included', async () => {
    const requests: string[] = [];
    const aborted: string[] = [];
    handler = (_req, res, url) => {
      if (url.searchParams.get('watch') === 'true') return res.end();
      const token = url.searchParams.get('continue') ?? '';
      requests.push(token);
      const n = Number(token.slice(1) || '0') + 1;
      // The request for page 6 is the prefetch of a page the reflector must not follow: held open
      // to see that it is aborted.
      if (n > 5) return res.on('close', () => aborted.push(token));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(listBody([podObject(`p${n}`)], `c${n}`));
    };
    const informer = createSharedInformer(makeLw(), { reflector: { maxListPages: 5, backoff: { initialMs: 60_000, maxMs: 60_000 } } });
    let error: unknown;
    informer.status$.subscribe((s) => {
      if (s.lastError instanceof ListTooLargeError) error = s.lastError;
    });
    informer.start();
    try {
      expect(await waitFor(() => error !== undefined && aborted.length > 0)).toBe(true);
      expect(error).toMatchObject({ limit: 'maxListPages', pages: 5, items: 5 });
      // Five pages and one prefetch, aborted; no sixth page followed, nothing stored.
      expect(requests).toEqual(['', 'c1', 'c2', 'c3', 'c4', 'c5']);
      expect(aborted).toEqual(['c5']);
      expect(informer.hasSynced()).toBe(false);
      expect(informer.getStore().size).toBe(0);
    } finally {
      informer.shutdown();
    }
  });
});

describe('an informer of the Kube factory, given objects of another kind', () => {
  const object = (kind: string, apiVersion: string, name: string, rv: string): KubeObject => ({
    kind,
    apiVersion,
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv },
  });
  // Lists `listed`, then a watch that sends `watched` and stays open.
  const serve = (path: string, listed: KubeObject[], watched: KubeObject[]): void => {
    handler = (_req, res, url) => {
      if (url.pathname === '/apis/example.com/v1') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const widgets = { name: 'widgets', kind: 'Widget', namespaced: true, verbs: ['list', 'watch'] };
        return res.end(JSON.stringify({ kind: 'APIResourceList', groupVersion: 'example.com/v1', resources: [widgets] }));
      }
      if (url.pathname !== path) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.get('watch') !== 'true') return res.end(listBody(listed));
      for (const o of watched) res.write(JSON.stringify({ type: 'ADDED', object: o }) + '\n');
    };
  };
  const errorsOf = (informer: SharedInformer<KubeObject>) => {
    // Each error once, though the statuses that follow it carry it on until it is cleared.
    const errors: UnexpectedTypeError[] = [];
    informer.status$.subscribe(
      (st) => st.lastError instanceof UnexpectedTypeError && !errors.includes(st.lastError) && errors.push(st.lastError),
    );
    return errors;
  };

  it('should keep them out of a typed informer and report them on status$', async () => {
    serve(
      '/api/v1/pods',
      [podObject('p'), object('ConfigMap', 'v1', 'cm2', '6')],
      [object('ConfigMap', 'v1', 'cm', '11'), podObject('q', '12')],
    );
    const factory = createKubeInformerFactory(serverKubeConfig(base));
    try {
      const informer = factory.informerFor(pods, { reflector: PAGED }); // `serve` answers lists
      const errors = errorsOf(informer as never);
      factory.start();
      await factory.waitForCacheSync();
      expect(await waitFor(() => informer.getStore().size === 2)).toBe(true);
      expect([...informer.getStore().keys()].sort()).toEqual(['default/p', 'default/q']);
      expect(errors.map((e) => [e.count, (e.object as KubeObject).metadata?.name])).toEqual([
        [1, 'cm2'], // the list's, on the status after it
        [1, 'cm'], // the watch event's
      ]);
    } finally {
      await factory.close();
    }
  });

  it('should keep them out of a dynamic informer, whose kind discovery gave', async () => {
    const widget = (name: string, rv: string) => object('Widget', 'example.com/v1', name, rv);
    const gadget = (name: string, rv: string) => object('Gadget', 'example.com/v1', name, rv);
    serve('/apis/example.com/v1/widgets', [widget('w1', '5'), gadget('g1', '6')], [gadget('g2', '11'), widget('w2', '12')]);
    const factory = createKubeInformerFactory(serverKubeConfig(base));
    try {
      const informer = await factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }, { reflector: PAGED });
      const errors = errorsOf(informer as never);
      factory.start();
      await factory.waitForCacheSync();
      expect(await waitFor(() => informer.getStore().size === 2)).toBe(true);
      expect([...informer.getStore().keys()].sort()).toEqual(['default/w1', 'default/w2']);
      expect(errors.map((e) => (e.object as KubeObject).metadata?.name)).toEqual(['g1', 'g2']);
    } finally {
      await factory.close();
    }
  });
});
