import { afterEach, describe, expect, it } from '@jest/globals';
import { until } from '@rxinformer/testing';
import { ModelServer } from '../../test/modelServer.ts';
import { PODS, sourceOf } from '../../test/channelKit.ts';
import { InvalidOptionsError } from '../errors.ts';
import { createInformerFactory, type InformerFactory } from '../informer/informerFactory.ts';
import { messagePortConnection } from './connection.ts';
import { connectInformerWorker, hostInformers, type WorkerScopeLike } from './workers.ts';

// Node's MessageChannel stands in for the browser's: a dedicated worker's `self` is one end, the
// page's `Worker` the other; a SharedWorker's `connect` event hands over a port. The real workers
// run in Chromium (packages/browser-example/test/sharedWorker.test.ts).
describe('hostInformers and connectInformerWorker', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('should serve a page factory from the worker factory over a dedicated worker, one watch for two pages', async () => {
    const api = new ModelServer();
    let watches = 0;
    const lw = { list: api.list.bind(api), watch: (o: object) => (watches++, api.watch(o)) };
    const { port1: page, port2: self } = new MessageChannel();
    const host = hostInformers(self as unknown as WorkerScopeLike, () => createInformerFactory(sourceOf(lw)));
    self.start();
    const factories = [connectInformerWorker(page), connectInformerWorker(page)];
    cleanups.push(() => {
      for (const f of factories) f.shutdown();
      host.shutdown();
      page.close();
    });
    api.create('a');
    const informers = factories.map((f) => f.informerFor(PODS));
    for (const f of factories) f.start();
    await Promise.all(factories.map((f) => f.waitForCacheSync({ timeoutMs: 10_000 })));
    api.create('b');
    const names = () => informers.map((i) => [...i.getStore().keys()].sort().join());
    await until(() => names().every((n) => n === 'ns/a,ns/b'), { what: 'both pages to see b' });
    expect(watches).toBe(1);
  });

  it('should serve every tab of a SharedWorker through the port of its connect event', async () => {
    const api = new ModelServer();
    const connects: ((e: MessageEvent) => void)[] = [];
    const scope = {
      onconnect: null,
      addEventListener: (type: string, l: (e: MessageEvent) => void) => type === 'connect' && connects.push(l),
    };
    const host = hostInformers(scope as WorkerScopeLike, () => createInformerFactory(sourceOf(api)));
    const tabs: InformerFactory[] = [];
    for (let i = 0; i < 2; i++) {
      const { port1: tabPort, port2: workerPort } = new MessageChannel();
      for (const l of connects) l({ ports: [workerPort] } as unknown as MessageEvent);
      tabs.push(connectInformerWorker({ port: tabPort }));
      cleanups.push(() => tabPort.close());
    }
    cleanups.unshift(() => {
      for (const t of tabs) t.shutdown();
      host.shutdown();
    });
    api.create('a');
    const informers = tabs.map((t) => t.informerFor(PODS));
    for (const t of tabs) t.start();
    await Promise.all(tabs.map((t) => t.waitForCacheSync({ timeoutMs: 10_000 })));
    expect(informers.map((i) => i.getStore().keys())).toEqual([['ns/a'], ['ns/a']]);
  });

  it('should post JSON strings with encoding json, and parse a string received whatever it sends', async () => {
    const { port1, port2 } = new MessageChannel();
    const raw: unknown[] = [];
    port2.addEventListener('message', (e) => raw.push(e.data));
    port2.start();
    const json = messagePortConnection(port1 as unknown as MessagePort, { encoding: 'json' });
    json.send({ t: 'pong' });
    await until(() => raw.length === 1, { what: 'the raw message' });
    expect(raw).toEqual(['{"t":"pong"}']);
    const got: unknown[] = [];
    json.messages$.subscribe((m) => got.push(m));
    port2.postMessage('{"t":"ping"}');
    port2.postMessage('not json');
    port2.postMessage({ t: 'bye' });
    await until(() => got.length === 3, { what: 'three messages' });
    expect(got).toEqual([{ t: 'ping' }, undefined, { t: 'bye' }]);
    json.close();
    port2.close();
  });

  it('should refuse what is not a worker or a scope', () => {
    expect(() => connectInformerWorker({} as never)).toThrow(InvalidOptionsError);
    expect(() => hostInformers({} as never, () => createInformerFactory(sourceOf(new ModelServer())))).toThrow(InvalidOptionsError);
  });
});
