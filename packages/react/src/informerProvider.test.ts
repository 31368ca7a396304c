// <InformerProvider> under StrictMode and across mounts: one list, one watch, never a shutdown
// under the user; and the typed errors of hooks with no provider.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createElement, StrictMode, type ReactElement } from 'react';
import { createInformerFactory, FactoryShutdownError, InvalidOptionsError, type InformerFactory } from '@rxinformer/core';
import { flushTo, testScheduler } from '@rxinformer/testing';
import { InformerProviderMissingError } from './errors.ts';
import { InformerProvider, useInformer, useInformerFactory } from './informerProvider.ts';
import { useHasSynced, useInformerStatus, useList } from './storeHooks.ts';
import { actUntil, manualSource, nextFrame, pod, podsResource, render, type Rendered } from '../test/reactTestKit.ts';

const factories: InformerFactory[] = [];
const roots: Rendered[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await r.unmount();
  for (const f of factories.splice(0)) f.shutdown();
});

const track = async (element: ReactElement): Promise<Rendered> => {
  const rendered = await render(element);
  roots.push(rendered);
  return rendered;
};
const Count = () => createElement('p', null, `${useHasSynced(podsResource) ? 'synced' : 'loading'} ${useList(podsResource).length}`);

describe('InformerProvider', () => {
  it("should list and watch once under StrictMode's mount, unmount and remount, and keep the factory the user's", async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1')]);
    const ts = testScheduler(); // the grace's clock: it never runs here, so no release stops the factory
    const factory = createInformerFactory(manual.source, { scheduler: ts });
    factories.push(factory);
    const { container, unmount } = await track(
      createElement(StrictMode, null, createElement(InformerProvider, { factory }, createElement(Count))),
    );
    await actUntil(() => container.textContent === 'synced 1');
    expect(manual.lists()).toBe(1);
    expect(manual.watches()).toBe(1);
    expect(manual.openWatches()).toBe(1);
    expect(ts.actions.filter((a) => a.delay === 5000)).toHaveLength(0); // StrictMode's release was retained again
    await unmount();
    expect(factory.isRunning()).toBe(true); // in the grace
    flushTo(ts, 5000); // the grace passes
    expect(factory.isRunning()).toBe(false);
    expect(manual.openWatches()).toBe(0);
    expect(() => factory.informerFor(podsResource)).not.toThrow(); // stopped, not shut down
    const again = await track(createElement(InformerProvider, { factory }, createElement(Count)));
    await actUntil(() => again.container.textContent === 'synced 1');
    expect(manual.lists()).toBe(2); // a real stop, then a start: a relist, as client-go
  });

  it('should make a factory of its own from a source, once, and stop it (not shut it down) on unmount', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1'), pod('web', 'b', 'Running', '2')]);
    let seen: InformerFactory | undefined;
    const Probe = () => {
      seen = useInformerFactory();
      return createElement(Count);
    };
    const tree = (n: number) =>
      createElement(
        StrictMode,
        null,
        createElement(InformerProvider, { source: manual.source, options: { releaseGraceMs: 0 } }, createElement(Probe, { key: n })),
      );
    const { container, rerender, unmount } = await track(tree(1));
    await actUntil(() => container.textContent === 'synced 2');
    const first = seen!;
    await rerender(tree(2)); // a new child, a new inline source prop: the same factory
    expect(seen).toBe(first);
    expect(manual.lists()).toBe(1);
    await unmount();
    expect(first.isRunning()).toBe(false);
    expect(manual.openWatches()).toBe(0);
    expect(() => first.informerFor(podsResource)).not.toThrow();
    factories.push(first);
  });

  it('should give informers of other scopes through useInformer, one per scope', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1')]);
    const factory = createInformerFactory(manual.source, { releaseGraceMs: 0 });
    factories.push(factory);
    const seen: unknown[] = [];
    const Scoped = () => {
      const web = useInformer(podsResource, { namespace: 'web' });
      seen.push(web);
      return createElement('p', null, String(useList(web).length));
    };
    const { container } = await track(createElement(InformerProvider, { factory }, createElement(Scoped), createElement(Scoped)));
    await actUntil(() => container.textContent === '11');
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toBe(factory.informerFor(podsResource, { namespace: 'web' }));
    expect(seen[0]).not.toBe(factory.informerFor(podsResource));
  });

  it('should let hooks read an informer passed to them without any provider', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1')]);
    const factory = createInformerFactory(manual.source);
    factories.push(factory);
    const informer = factory.informerFor(podsResource);
    factory.start();
    const { container } = await track(createElement(() => createElement('p', null, String(useList(informer).length))));
    await nextFrame();
    expect(container.textContent).toBe('1');
  });

  it('should throw InformerProviderMissingError from a hook given a descriptor with no provider above it', async () => {
    for (const [name, hook] of [
      ['useList', () => useList(podsResource)],
      ['useInformer', () => useInformer(podsResource)],
      ['useInformerFactory', () => useInformerFactory()],
      ['useInformerStatus', () => useInformerStatus(podsResource)],
    ] as const) {
      const Component = () => {
        hook();
        return null;
      };
      const rendering = render(createElement(Component));
      await expect(rendering).rejects.toThrow(InformerProviderMissingError);
      await expect(rendering).rejects.toMatchObject({
        reason: 'InformerProviderMissing',
        message: expect.stringContaining(`${name}() found no`),
      });
    }
  });

  it('should refuse neither or both of factory and source, and surface a shut-down factory', async () => {
    const manual = manualSource([]);
    const factory = createInformerFactory(manual.source);
    factories.push(factory);
    await expect(render(createElement(InformerProvider, {}))).rejects.toThrow(InvalidOptionsError);
    await expect(render(createElement(InformerProvider, { factory, source: manual.source }))).rejects.toThrow('not both');
    factory.shutdown();
    await expect(render(createElement(InformerProvider, { factory }, createElement(Count)))).rejects.toThrow(FactoryShutdownError);
  });
});
