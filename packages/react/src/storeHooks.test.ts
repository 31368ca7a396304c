// The reading hooks rendered by React DOM (in Node, over domino): what each returns, and which
// components re-render when the cache changes.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createElement, memo, StrictMode, type ReactElement } from 'react';
import { createInformerFactory, type InformerFactory, type StoreSnapshot } from '@rxinformer/core';
import { InformerProvider, useInformer } from './informerProvider.ts';
import { useByIndex, useHasSynced, useInformerStatus, useList, useObject } from './storeHooks.ts';
import { shallowEqual, useStoreSelector } from './storeSnapshot.ts';
import { settle, until } from '@rxinformer/testing';
import {
  actUntil,
  manualSource,
  nextFrame,
  outsideAct,
  pod,
  podsResource,
  render,
  renderCounter,
  type ManualSource,
  type Pod,
} from '../test/reactTestKit.ts';

const factories: InformerFactory[] = [];
const mounted: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const unmount of mounted.splice(0)) await unmount();
  for (const f of factories.splice(0)) f.shutdown();
});

/** A factory over `manual` (stopping at the last release), and `ui` inside its provider in StrictMode. */
async function renderWith(manual: ManualSource, ui: ReactElement) {
  const factory = createInformerFactory(manual.source, { releaseGraceMs: 0 });
  factories.push(factory);
  const rendered = await render(createElement(StrictMode, null, createElement(InformerProvider, { factory }, ui)));
  mounted.push(rendered.unmount);
  await nextFrame();
  return { factory, ...rendered };
}

const names = (pods: readonly Pod[]) =>
  pods
    .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)
    .sort()
    .join(' ');

describe('useList', () => {
  it('should render the listed objects once synced, then follow the watch', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1'), pod('batch', 'b', 'Pending', '2')]);
    const List = () => {
      const pods = useList(podsResource);
      return createElement('p', null, `${useHasSynced(podsResource) ? 'synced' : 'loading'}: ${names(pods)}`);
    };
    const { container } = await renderWith(manual, createElement(List));
    expect(container.textContent).toBe('synced: batch/b web/a');
    manual.emit({ type: 'ADDED', object: pod('web', 'c', 'Pending', '11') });
    manual.emit({ type: 'DELETED', object: pod('batch', 'b', 'Pending', '12') });
    await nextFrame();
    expect(container.textContent).toBe('synced: web/a web/c');
  });

  it('should filter the cache by namespace and label selector, and not re-render for a change outside the filter', async () => {
    const manual = manualSource([
      pod('web', 'a', 'Running', '1', { app: 'shop' }),
      pod('web', 'b', 'Running', '2', { app: 'blog' }),
      pod('batch', 'c', 'Running', '3', { app: 'shop' }),
    ]);
    const renders = renderCounter();
    const Filtered = () => {
      renders.counted('filtered');
      return createElement('p', null, names(useList(podsResource, { namespace: 'web', labelSelector: 'app in (shop)' })));
    };
    const { container } = await renderWith(manual, createElement(Filtered));
    expect(container.textContent).toBe('web/a');
    const before = renders.count('filtered');
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Failed', '11', { app: 'blog' }) }); // another label
    manual.emit({ type: 'MODIFIED', object: pod('batch', 'c', 'Failed', '12', { app: 'shop' }) }); // another namespace
    await nextFrame();
    expect(renders.count('filtered')).toBe(before);
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Failed', '13', { app: 'shop' }) }); // now matches
    await nextFrame();
    expect(container.textContent).toBe('web/a web/b');
    expect(renders.count('filtered')).toBeGreaterThan(before);
  });

  it("should hand memoized rows the cache's objects, so only the changed pod's row re-renders", async () => {
    const manual = manualSource(['a', 'b', 'c'].map((n, i) => pod('web', n, 'Pending', String(i + 1))));
    const renders = renderCounter();
    const Row = memo(function Row({ pod }: { pod: Pod }) {
      renders.counted(pod.metadata!.name!);
      return createElement('li', null, `${pod.metadata?.name} ${pod.status?.phase}`);
    });
    const Table = () =>
      createElement(
        'ul',
        null,
        useList(podsResource).map((p) => createElement(Row, { key: p.metadata!.uid!, pod: p })),
      );
    await renderWith(manual, createElement(Table));
    const before = ['a', 'b', 'c'].map((n) => renders.count(n));
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Running', '11') });
    await nextFrame();
    expect(['a', 'b', 'c'].map((n) => renders.count(n) - before[['a', 'b', 'c'].indexOf(n)])).toEqual([0, 2, 0]); // StrictMode renders twice
  });

  it('should render a burst of events, each in its own turn, in one commit (one macrotask in Node, one frame in a browser)', async () => {
    const manual = manualSource([pod('web', 'a', 'Pending', '1')]);
    const Count = () => createElement('p', null, String(useList(podsResource).length));
    const { container, commits } = await renderWith(manual, createElement(Count));
    const before = commits();
    await outsideAct(async () => {
      for (let i = 0; i < 100; i++) {
        manual.emit({ type: 'ADDED', object: pod('web', `p${i}`, 'Pending', String(100 + i)) });
        await Promise.resolve(); // a turn of its own, as watch chunks arrive: React could render in between
      }
      await until(() => container.textContent === '101');
      await settle();
    });
    expect(commits() - before).toBe(1);
  });
});

describe('useObject', () => {
  it('should return the object under a key, and re-render only when that object changes', async () => {
    const manual = manualSource([pod('web', 'a', 'Pending', '1'), pod('web', 'b', 'Pending', '2')]);
    const renders = renderCounter();
    const One = ({ name }: { name: string | undefined }) => {
      renders.counted('one');
      const found = useObject(podsResource, name === undefined ? undefined : `web/${name}`);
      return createElement('p', null, found ? `${found.metadata?.name} ${found.status?.phase}` : 'none');
    };
    const { container, rerender, factory } = await renderWith(manual, createElement(One, { name: 'a' }));
    expect(container.textContent).toBe('a Pending');
    const before = renders.count('one');
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Running', '11') });
    await nextFrame();
    expect(renders.count('one')).toBe(before);
    manual.emit({ type: 'MODIFIED', object: pod('web', 'a', 'Running', '12') });
    await nextFrame();
    expect(container.textContent).toBe('a Running');
    await rerender(createElement(StrictMode, null, createElement(InformerProvider, { factory }, createElement(One, { name: undefined }))));
    expect(container.textContent).toBe('none');
  });
});

describe('useByIndex', () => {
  it("should return an index's objects, from an informer with the index requested through useInformer", async () => {
    const indexers = { byPhase: (p: Pod) => [p.status?.phase ?? ''] };
    const manual = manualSource([pod('web', 'a', 'Pending', '1'), pod('web', 'b', 'Running', '2')]);
    const Running = () => {
      const pods = useInformer(podsResource, { indexers });
      return createElement('p', null, names(useByIndex(pods, 'byPhase', 'Running')));
    };
    const { container } = await renderWith(manual, createElement(Running));
    expect(container.textContent).toBe('web/b');
    manual.emit({ type: 'MODIFIED', object: pod('web', 'a', 'Running', '11') });
    await nextFrame();
    expect(container.textContent).toBe('web/a web/b');
  });
});

describe('useStoreSelector', () => {
  const runningNames = (store: StoreSnapshot<Pod>) =>
    store
      .list()
      .filter((p) => p.status?.phase === 'Running')
      .map((p) => p.metadata!.name!)
      .sort();

  it('should re-render only when the selected value changes, shallowly by default, by identity with Object.is', async () => {
    const manual = manualSource([pod('web', 'a', 'Running', '1'), pod('web', 'b', 'Pending', '2')]);
    const renders = renderCounter();
    const Shallow = () => {
      renders.counted('shallow');
      return createElement('p', null, useStoreSelector(podsResource, runningNames).join(','));
    };
    const ByIdentity = () => {
      renders.counted('identity');
      return createElement('p', null, useStoreSelector(podsResource, runningNames, Object.is).join(','));
    };
    const { container } = await renderWith(manual, createElement('div', null, createElement(Shallow), createElement(ByIdentity)));
    expect(container.textContent).toBe('aa');
    const [shallow, identity] = [renders.count('shallow'), renders.count('identity')];
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Pending', '11') }); // the same names run
    await nextFrame();
    expect(renders.count('shallow')).toBe(shallow);
    expect(renders.count('identity')).toBeGreaterThan(identity); // a new array each time
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Running', '12') });
    await nextFrame();
    expect(container.textContent).toBe('a,ba,b');
    expect(renders.count('shallow')).toBeGreaterThan(shallow);
  });
});

describe('useInformerStatus', () => {
  it("should follow the informer's status, the object getStatus returns", async () => {
    const manual = manualSource([]);
    let seen: unknown;
    const Status = () => {
      const status = useInformerStatus(podsResource);
      seen = status;
      return createElement('p', null, `${status.phase} ${status.relistCount}`);
    };
    const { container, factory } = await renderWith(manual, createElement(Status));
    await actUntil(() => container.textContent === 'watching 0');
    expect(seen).toBe(factory.informerFor(podsResource).getStatus());
  });
});

describe('shallowEqual', () => {
  it('should compare arrays and plain objects one level deep, and anything else by identity', () => {
    const o = {};
    expect(shallowEqual([o, 1], [o, 1])).toBe(true);
    expect(shallowEqual([o], [{}])).toBe(false);
    expect(shallowEqual([1], [1, 2])).toBe(false);
    expect(shallowEqual({ a: o, b: 2 }, { b: 2, a: o })).toBe(true);
    expect(shallowEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(shallowEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(shallowEqual(NaN, NaN)).toBe(true);
    expect(shallowEqual(new Map(), new Map())).toBe(false); // not plain objects
    expect(shallowEqual([1], { 0: 1, length: 1 })).toBe(false);
    expect(shallowEqual(null, {})).toBe(false);
  });
});
