// With zone.js, as apps that still use it run: loaded before Angular, patching this test file's
// timers and promises (jest gives each test file its own globals).
import 'zone.js';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Component, NgZone, provideZoneChangeDetection } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { initTestBed, manualSource, pod, podsResource, type Pod } from '../test/angularTestKit.ts';
import { informerSignal } from './informerSignal.ts';
import { injectEventHandler } from './injectEventHandler.ts';
import { injectInformer } from './injectInformer.ts';
import { provideInformers } from './provideInformers.ts';

beforeAll(initTestBed);
afterEach(() => {
  TestBed.resetTestingModule();
});

/** Shows the Running pods' count and the cache size; records the zone its handler runs in. */
const PodSummary = Component({
  selector: 'pod-summary',
  template: `{{ running() }} of {{ pods.store().size }} running, {{ pods.status().phase }}`,
})(
  class {
    readonly pods = injectInformer(podsResource);
    readonly running = informerSignal(this.pods, (s) => s.list().filter((p) => p.status?.phase === 'Running').length);
    readonly handlerZones: boolean[] = [];
    readonly handler = injectEventHandler<Pod>(this.pods, { onUpdate: () => void this.handlerZones.push(NgZone.isInAngularZone()) });
  },
);

describe('@rxinformer/angular with zone.js', () => {
  it('should run the informers outside the Angular zone and still render their changes', async () => {
    expect(typeof Zone).toBe('function');
    const manual = manualSource([pod('default', 'a', 'Running', '5'), pod('default', 'b', 'Pending', '6')]);
    TestBed.configureTestingModule({ providers: [provideZoneChangeDetection(), provideInformers({ source: manual.source })] });
    const fixture = TestBed.createComponent(PodSummary);
    fixture.autoDetectChanges();
    await fixture.whenStable();
    const text = () => (fixture.nativeElement as HTMLElement).textContent;
    expect(text()).toBe('1 of 2 running, watching');
    // The streaming list (the watch it goes on as) was requested from outside the zone (its
    // callbacks, the watch's chunks and the backoff timers stay there): no app-wide change detection per event.
    expect(manual.requests).toEqual([{ kind: 'streaming list', inAngularZone: false }]);
    manual.emit({ type: 'MODIFIED', object: pod('default', 'b', 'Running', '7') });
    await fixture.whenStable();
    expect(text()).toBe('2 of 2 running, watching');
    expect(fixture.componentInstance.handlerZones).toEqual([false]);
    expect(fixture.componentInstance.handler.metrics().delivered).toBe(3); // the initial two, and the update
  }, 10_000); // inside the zone, its pending timers would keep the app from ever being stable
});
