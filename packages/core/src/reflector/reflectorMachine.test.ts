/**
 * The reflector's pure machine, stepped by hand (the driver and its timing are tested in
 * reflector.test.ts): how a paged list accumulates its pages.
 */
import { describe, expect, it } from '@jest/globals';
import { KubeApiError } from '../errors.ts';
import { step } from './reflectorMachine.ts';
import { initialReflectorModel, type ReflectorModel, type StepContext, type StepResult } from './reflectorModel.ts';
import { resolveOptions } from './reflectorOptions.ts';
import type { KubeObject, ListPage, ReflectorEvent } from '../types.ts';
import { page, testObject as obj } from '@rxinformer/testing';

const ctx: StepContext = { options: resolveOptions({ pageSize: 2, useStreamingList: false }), now: 0, random: () => 0.5 };

/** Pages of two objects each, all but the last with a continue token. */
function pages(count: number, prefix = 'p'): ListPage[] {
  return Array.from({ length: count }, (_, i) =>
    page([obj(`${prefix}${2 * i}`, '1'), obj(`${prefix}${2 * i + 1}`, '1')], '5', i < count - 1 ? `c${i + 1}` : undefined),
  );
}

/** The objects held by a list in progress. */
function held(model: ReflectorModel<KubeObject>): KubeObject[] {
  if (model.state.phase !== 'listing') throw new Error(`not listing: ${model.state.phase}`);
  return model.state.items;
}

const replaceOf = (result: StepResult<KubeObject>) =>
  result.outputs.find((o): o is Extract<ReflectorEvent, { type: 'LIST' }> => o.type === 'LIST');

const names = (items: readonly KubeObject[]) => items.map((o) => o.metadata?.name);

describe('step', () => {
  it('should add each page of a list to one array of its own, never copying the objects held before', () => {
    const list = pages(4);
    let result = step(initialReflectorModel<KubeObject>(), { type: 'start' }, ctx);
    const arrays: KubeObject[][] = [];
    for (const p of list.slice(0, 3)) {
      result = step(result.model, { type: 'page', page: p }, ctx);
      arrays.push(held(result.model));
    }
    // One array for the whole list: copying it with every page made a list of n objects cost O(n²).
    expect(new Set(arrays).size).toBe(1);
    expect(names(arrays[0])).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    result = step(result.model, { type: 'page', page: list[3] }, ctx);
    expect(replaceOf(result)?.items).toBe(arrays[0]);
    expect(names(replaceOf(result)!.items)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    // The pages the ListerWatcher handed over are never written to.
    expect(list.map((p) => names(p.items))).toEqual([
      ['p0', 'p1'],
      ['p2', 'p3'],
      ['p4', 'p5'],
      ['p6', 'p7'],
    ]);
  });

  it('should hold each list in a new array, never in one already emitted', () => {
    let result = step(initialReflectorModel<KubeObject>(), { type: 'start' }, ctx);
    for (const p of pages(2)) result = step(result.model, { type: 'page', page: p }, ctx);
    const first = replaceOf(result)!.items;
    // The watch expires: a relist at once, whose pages must not land in the array the store was given.
    result = step(result.model, { type: 'error', error: new KubeApiError(410, { reason: 'Expired' }) }, ctx);
    expect(result.action.type).toBe('list');
    for (const p of pages(2, 'q')) result = step(result.model, { type: 'page', page: p }, ctx);
    expect(names(first)).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(names(replaceOf(result)!.items)).toEqual(['q0', 'q1', 'q2', 'q3']);
  });

  it('should emit a list of one page as that page, uncopied', () => {
    const only = page([obj('a', '1'), obj('b', '1')], '5');
    let result = step(initialReflectorModel<KubeObject>(), { type: 'start' }, ctx);
    result = step(result.model, { type: 'page', page: only }, ctx);
    expect(replaceOf(result)?.items).toBe(only.items);
  });
});
