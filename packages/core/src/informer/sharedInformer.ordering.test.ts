/**
 * The shared informer's streams when listeners act on the informer while a change is being
 * published (reentrancy), and `whileSubscribed`, which runs it while its store is read.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Subject, of } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { createSharedInformer, type SharedInformer } from './sharedInformer.ts';
import { whileSubscribed } from './whileSubscribed.ts';
import type { KubeObject, ReflectorPhase, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, PAGED } from '@rxinformer/testing';

const made: SharedInformer<KubeObject>[] = [];
afterEach(() => {
  for (const i of made.splice(0)) i.shutdown();
});
function informer(options: Parameters<typeof createSharedInformer<KubeObject>>[1] = {}) {
  const lw = fakeListerWatcher();
  const watch = new Subject<WatchEvent>();
  lw.scriptList(of(page([obj('a', '1'), obj('b', '2')], '10')));
  lw.scriptWatch(watch);
  const i = createSharedInformer(lw, { ...options, reflector: { ...PAGED, ...options.reflector } });
  made.push(i);
  return { informer: i, watch };
}

describe('createSharedInformer, listeners acting while a change is published', () => {
  it('should end every status$ listener on stopped when a store$ listener stops the informer', () => {
    const { informer: i } = informer();
    i.store$.subscribe((s) => {
      if (s.size > 0) i.stop(); // heard before the status$ listener below hears the same change
    });
    const phases: ReflectorPhase[] = [];
    i.status$.subscribe((s) => phases.push(s.phase));
    i.start();
    expect(i.isRunning()).toBe(false);
    expect(phases.at(-1)).toBe('stopped');
  });

  it('should never take store$ back to an older snapshot when a listener adds indexers', () => {
    const { informer: i, watch } = informer();
    i.start();
    const byName = (o: KubeObject) => [o.metadata?.name ?? ''];
    i.store$.subscribe((s) => {
      if (s.get('default/c') && s.indexNames().length === 1) i.addIndexers({ byName });
    });
    const seen: number[] = [];
    i.store$.subscribe((s) => seen.push(s.indexNames().length));
    watch.next({ type: 'ADDED', object: obj('c', '11') });
    expect(seen.at(-1)).toBe(2);
    expect(i.getStore().indexKeys('byName', 'c')).toEqual(['default/c']);
  });

  it('should add indexers to an informer that never started', () => {
    const { informer: i } = informer();
    i.addIndexers({ byName: (o) => [o.metadata?.name ?? ''] });
    expect(i.getStore().indexNames()).toContain('byName');
    i.start();
    expect(i.getStore().indexKeys('byName', 'b')).toEqual(['default/b']);
  });

  it('should refuse a freeze option that is not a boolean', () => {
    expect(() => informer({ freeze: 'no' as never })).toThrow(InvalidOptionsError);
  });
});

describe('whileSubscribed', () => {
  it('should complete on shutdown while it keeps the watch running, and refuse to start it again', () => {
    const { informer: i } = informer();
    const completed: string[] = [];
    whileSubscribed(i).subscribe({ complete: () => completed.push('whileSubscribed') });
    expect(i.isRunning()).toBe(true);
    i.shutdown();
    expect(completed).toEqual(['whileSubscribed']);
    expect(i.isRunning()).toBe(false);
    const errors: unknown[] = [];
    whileSubscribed(i).subscribe({ error: (e) => errors.push(e) });
    expect(errors).toEqual([expect.objectContaining({ reason: 'InformerShutdown' })]);
  });

  it('should run the watch once for all subscribers of every call and stop it when the last one leaves', () => {
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([obj('a', '1')], '10')), of(page([obj('a', '1')], '10')));
    const i = createSharedInformer(lw, { reflector: PAGED });
    made.push(i);
    const sizes: number[] = [];
    const one = whileSubscribed(i).subscribe((s) => sizes.push(s.size));
    const other = whileSubscribed(i).subscribe((s) => sizes.push(s.size));
    expect(whileSubscribed(i)).toBe(whileSubscribed(i));
    expect([lw.listCalls.length, sizes]).toEqual([1, [1, 1]]);
    one.unsubscribe();
    expect(i.isRunning()).toBe(true);
    other.unsubscribe();
    expect(i.isRunning()).toBe(false);
    whileSubscribed(i).subscribe().unsubscribe(); // a new first subscriber starts it again
    expect(lw.listCalls).toHaveLength(2);
    expect(i.isRunning()).toBe(false);
  });
});
