import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  afterEveryRender,
  Component,
  createEnvironmentInjector,
  EnvironmentInjector,
  provideZonelessChangeDetection,
  signal,
  type Signal,
} from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { InvalidOptionsError, NAMESPACE_INDEX, type StoreSnapshot } from '@rxinformer/core';
import { initTestBed, manualSource, pod, podsOver, podsResource, reader, type Pod } from '../test/angularTestKit.ts';
import { NotInInjectionContextError } from './errors.ts';
import { informerSignal } from './informerSignal.ts';
import { injectInformer } from './injectInformer.ts';
import { provideInformers } from './provideInformers.ts';

beforeAll(initTestBed);
afterEach(() => {
  TestBed.resetTestingModule();
});

const initial = () => [pod('default', 'a', 'Running', '5'), pod('web', 'b', 'Pending', '6')];
const sameNames = (a: readonly unknown[], b: readonly unknown[]) => a.join() === b.join();
const running = (s: StoreSnapshot<Pod>) => s.list().filter((p) => p.status?.phase === 'Running').length;

describe('informerSignal', () => {
  it('should hold the selected value and notify its readers only when a change of the store changes it', () => {
    const manual = manualSource(initial());
    const pods = podsOver(manual);
    const count = TestBed.runInInjectionContext(() => informerSignal(pods, running));
    const view = reader(count);
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Pending', '7') }); // a new store, the same count
    manual.emit({ type: 'ADDED', object: pod('web', 'c', 'Failed', '8') });
    expect(view.notifications).toBe(0);
    manual.emit({ type: 'MODIFIED', object: pod('web', 'b', 'Running', '9') });
    expect(view.notifications).toBe(1);
    view.read();
    expect(view.values).toEqual([1, 2]);
    expect(pods.store().size).toBe(3); // while the store signal followed every change
  });

  it('should keep the value it holds when equal says the new one is the same', () => {
    const manual = manualSource(initial());
    const pods = podsOver(manual);
    const names = TestBed.runInInjectionContext(() => informerSignal(pods, (s) => s.keys().toSorted(), { equal: sameNames }));
    const view = reader(names);
    const before = names();
    manual.emit({ type: 'MODIFIED', object: pod('default', 'a', 'Failed', '7') });
    expect(view.notifications).toBe(0);
    expect(names()).toBe(before);
    manual.emit({ type: 'DELETED', object: pod('default', 'a', 'Failed', '8') });
    expect(view.notifications).toBe(1);
    expect(names()).toEqual(['web/b']);
  });

  it('should follow the signals select reads, such as a namespace filter', () => {
    const manual = manualSource(initial());
    const pods = podsOver(manual);
    const namespace = signal('default');
    const inNamespace = TestBed.runInInjectionContext(() =>
      informerSignal(pods, (s) => s.indexKeys(NAMESPACE_INDEX, namespace()).toSorted(), { equal: sameNames }),
    );
    const view = reader(inNamespace);
    namespace.set('web');
    expect(view.notifications).toBe(1);
    view.read();
    manual.emit({ type: 'ADDED', object: pod('default', 'z', 'Running', '7') }); // outside the filter now
    expect(view.notifications).toBe(1);
    manual.emit({ type: 'ADDED', object: pod('web', 'y', 'Running', '8') });
    expect(view.notifications).toBe(2);
    view.read();
    expect(view.values).toEqual([['default/a'], ['web/b'], ['web/b', 'web/y']]);
  });

  it('should let a select that throws reach its readers, and recover', () => {
    const manual = manualSource(initial());
    const pods = podsOver(manual);
    const strict = TestBed.runInInjectionContext(() =>
      informerSignal(pods, (s) => {
        if (s.size > 2) throw new Error('too many');
        return s.size;
      }),
    );
    expect(strict()).toBe(2);
    manual.emit({ type: 'ADDED', object: pod('web', 'c', 'Running', '7') });
    expect(() => strict()).toThrow('too many');
    manual.emit({ type: 'DELETED', object: pod('web', 'c', 'Running', '8') });
    expect(strict()).toBe(2);
  });

  it('should stop following the store when its injector is destroyed', () => {
    const manual = manualSource(initial());
    const pods = podsOver(manual);
    const component = createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const count = informerSignal(pods, (s) => s.size, { injector: component });
    const view = reader(count);
    component.destroy();
    manual.emit({ type: 'ADDED', object: pod('web', 'c', 'Running', '7') });
    expect(view.notifications).toBe(0);
    expect(count()).toBe(2);
  });

  it('should refuse what is not an informer, a missing select, a bad equal, and a call outside an injection context', () => {
    const pods = podsOver(manualSource([]));
    const inContext =
      <R>(fn: () => R) =>
      () =>
        TestBed.runInInjectionContext(fn);
    expect(inContext(() => informerSignal({} as never, running))).toThrow(InvalidOptionsError);
    expect(inContext(() => informerSignal(pods, undefined as never))).toThrow('informerSignal needs a select function');
    expect(inContext(() => informerSignal(pods, running, { equal: 1 as never }))).toThrow('equal must be a function');
    expect(() => informerSignal(pods, running)).toThrow(NotInInjectionContextError);
  });
});

describe('informerSignal in a zoneless component', () => {
  /** A component that shows the Running pods of one namespace; counts its renders. */
  const RunningPods = Component({
    selector: 'running-pods',
    template: `@for (name of names(); track name) {<li>{{ name }}</li>}`,
  })(
    class {
      readonly pods = injectInformer(podsResource);
      readonly names: Signal<string[]> = informerSignal(
        this.pods,
        (s) =>
          s
            .byIndex(NAMESPACE_INDEX, 'web')
            .filter((p) => p.status?.phase === 'Running')
            .map((p) => p.metadata!.name!)
            .sort(),
        { equal: sameNames },
      );
      renders = 0;
      constructor() {
        afterEveryRender(() => this.renders++);
      }
    },
  );

  it('should render for the changes it shows and for no other event, not even a change detection pass', async () => {
    const manual = manualSource([...initial(), pod('web', 'c', 'Running', '7')]);
    TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection(), provideInformers({ source: manual.source })] });
    const fixture = TestBed.createComponent(RunningPods);
    await fixture.whenStable();
    const list = () => (fixture.nativeElement as HTMLElement).textContent;
    expect(list()).toBe('c');
    const { renders } = fixture.componentInstance;
    for (let i = 0; i < 5; i++) manual.emit({ type: 'MODIFIED', object: pod('default', 'a', i % 2 ? 'Running' : 'Failed', `${10 + i}`) });
    manual.emit({ type: 'ADDED', object: pod('web', 'd', 'Pending', '20') }); // in the namespace, not Running
    await fixture.whenStable();
    expect(fixture.componentInstance.renders).toBe(renders);
    manual.emit({ type: 'MODIFIED', object: pod('web', 'd', 'Running', '21') });
    await fixture.whenStable();
    expect(list()).toBe('cd');
    expect(fixture.componentInstance.renders).toBe(renders + 1);
  });
});
