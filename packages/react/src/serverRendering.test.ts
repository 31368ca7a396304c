// Server-side rendering with react-dom/server: the hooks render the stores as they are, and no
// watch starts (effects never run on the server).
import { afterEach, describe, expect, it } from '@jest/globals';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { createInformerFactory, type InformerFactory } from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { InformerProvider } from './informerProvider.ts';
import { useHasSynced, useInformerStatus, useList } from './storeHooks.ts';
import { manualSource, pod, podsResource } from '../test/reactTestKit.ts';

const factories: InformerFactory[] = [];
afterEach(() => {
  for (const f of factories.splice(0)) f.shutdown();
});

const Pods = () => {
  const pods = useList(podsResource);
  const status = useInformerStatus(podsResource);
  return createElement(
    'p',
    null,
    `${status.phase} ${useHasSynced(podsResource) ? 'synced' : 'not synced'}: ${pods.map((p) => p.metadata?.name).join(',')}`,
  );
};

describe('server-side rendering', () => {
  it('should render the empty store and start no watch, with a provider made from a source', () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1')]);
    const html = renderToString(createElement(InformerProvider, { source: manual.source }, createElement(Pods)));
    expect(html).toBe('<p>stopped not synced: </p>');
    expect(manual.lists()).toBe(0);
    expect(manual.watches()).toBe(0);
  });

  it('should render the caches of a factory the server started and synced, and leave it running as it was', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1'), pod('web', 'b', 'Pending', '2')]);
    const factory = createInformerFactory(manual.source);
    factories.push(factory);
    const informer = factory.informerFor(podsResource);
    factory.start();
    await factory.waitForCacheSync();
    await until(() => informer.getStatus().phase === 'watching');
    const html = renderToString(createElement(InformerProvider, { factory }, createElement(Pods)));
    expect(html).toMatch(/^<p>watching synced: (a,b|b,a)<\/p>$/);
    expect(manual.lists()).toBe(1);
    expect(factory.isRunning()).toBe(true);
  });
});
