import { describe, expect, it } from '@jest/globals';
import { InvalidObjectError, InvalidOptionsError } from '@rxinformer/core';
import { freeze, produce } from 'immer';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  statusConditions,
  type Condition,
  type ConditionInput,
} from './conditions.ts';
import { draftPatch } from '../client/jsonPatch.ts';

const T0 = '2026-03-01T10:00:00Z';
const T1 = '2026-03-01T11:30:00Z';
/** A clock at `iso` plus 789 ms: the condition's time keeps whole seconds. */
const at = (iso: string) => ({ scheduler: { now: () => Date.parse(iso) + 789 } });

const ready = (status: Condition['status'], more: Partial<Condition> = {}): Condition => ({
  type: 'Ready',
  status,
  lastTransitionTime: T0,
  reason: 'Sized',
  message: 'size 3',
  ...more,
});
const other: Condition = { type: 'Degraded', status: 'False', lastTransitionTime: T0, reason: 'Fine', message: '' };

describe('setStatusCondition', () => {
  // Each row: the conditions before, the condition set (at T1), what the array holds after, and whether it changed.
  const table: [string, Condition[], ConditionInput, Condition[], boolean][] = [
    [
      'should append a new type with lastTransitionTime now, in whole seconds, and message empty',
      [other],
      { type: 'Ready', status: 'True', reason: 'Sized' },
      [other, { type: 'Ready', status: 'True', lastTransitionTime: T1, reason: 'Sized', message: '' }],
      true,
    ],
    [
      'should append a new type with the lastTransitionTime given',
      [],
      { type: 'Ready', status: 'False', reason: 'Empty', lastTransitionTime: T0, observedGeneration: 2 },
      [{ type: 'Ready', status: 'False', observedGeneration: 2, lastTransitionTime: T0, reason: 'Empty', message: '' }],
      true,
    ],
    [
      'should keep lastTransitionTime when only reason and message change',
      [ready('True'), other],
      { type: 'Ready', status: 'True', reason: 'Resized', message: 'size 4' },
      [ready('True', { reason: 'Resized', message: 'size 4' }), other],
      true,
    ],
    [
      'should move lastTransitionTime to now when the status changes',
      [other, ready('True')],
      { type: 'Ready', status: 'False', reason: 'Empty', message: 'size 0' },
      [other, ready('False', { lastTransitionTime: T1, reason: 'Empty', message: 'size 0' })],
      true,
    ],
    [
      'should take the lastTransitionTime given when the status changes',
      [ready('True')],
      { type: 'Ready', status: 'Unknown', reason: 'Probing', message: 'size 3', lastTransitionTime: '2026-02-01T00:00:00Z' },
      [ready('Unknown', { lastTransitionTime: '2026-02-01T00:00:00Z', reason: 'Probing' })],
      true,
    ],
    [
      'should ignore a lastTransitionTime given when the status stays',
      [ready('True')],
      { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 3', lastTransitionTime: T1 },
      [ready('True')],
      false,
    ],
    [
      'should say nothing changed when nothing did',
      [ready('True', { observedGeneration: 3 })],
      { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 3', observedGeneration: 3 },
      [ready('True', { observedGeneration: 3 })],
      false,
    ],
    [
      'should update observedGeneration alone, keeping the time',
      [ready('True', { observedGeneration: 3 })],
      { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 3', observedGeneration: 4 },
      [ready('True', { observedGeneration: 4 })],
      true,
    ],
    [
      'should remove observedGeneration when the set has none, as apimachinery sets its zero',
      [ready('True', { observedGeneration: 3 })],
      { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 3' },
      [ready('True')],
      true,
    ],
    [
      'should clear the message when the set has none',
      [ready('True')],
      { type: 'Ready', status: 'True', reason: 'Sized' },
      [ready('True', { message: '' })],
      true,
    ],
    [
      'should change only the first of two conditions of one type, as FindStatusCondition finds it',
      [ready('True'), ready('True', { reason: 'Second' })],
      { type: 'Ready', status: 'False', reason: 'Empty', message: 'size 3' },
      [ready('False', { lastTransitionTime: T1, reason: 'Empty' }), ready('True', { reason: 'Second' })],
      true,
    ],
  ];

  it.each(table)('%s', (_, before, set, after, changed) => {
    const conditions = structuredClone(before);
    expect(setStatusCondition(conditions, set, at(T1))).toBe(changed);
    expect(conditions).toEqual(after);
    // The same in an immer draft: the same result, and a frozen base left alone.
    const base = freeze(structuredClone(before), true);
    let draftChanged: boolean | undefined;
    const next = produce(base, (d) => void (draftChanged = setStatusCondition(d, set, at(T1))));
    expect(draftChanged).toBe(changed);
    expect(next).toEqual(after);
    expect(next === base).toBe(!changed);
    expect(base).toEqual(before);
  });

  it('should change nothing in a draft set to what it holds, so an update sends no patch', () => {
    const widget = freeze({ metadata: { name: 'w', resourceVersion: '5' }, status: { conditions: [ready('True')] } }, true);
    const same = draftPatch(widget, (d) => void setStatusCondition(statusConditions(d), ready('True', { lastTransitionTime: T1 })));
    expect(same.operations).toEqual([]);
    const { operations } = draftPatch(
      widget,
      (d) => void setStatusCondition(statusConditions(d), { ...ready('False'), lastTransitionTime: T1 }),
    );
    expect(operations).toEqual([{ op: 'replace', path: '/status/conditions', value: [ready('False', { lastTransitionTime: T1 })] }]);
  });

  it('should read Date.now when no scheduler is given', () => {
    const conditions: Condition[] = [];
    const before = Math.floor(Date.now() / 1000) * 1000;
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Sized' });
    const time = Date.parse(conditions[0].lastTransitionTime);
    expect(conditions[0].lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(time).toBeGreaterThanOrEqual(before);
  });

  it('should refuse a condition the API would refuse, with the field named, and change nothing', () => {
    const conditions = [ready('True')];
    const bad: [unknown, RegExp][] = [
      [{ status: 'True', reason: 'R' }, /type must be a non-empty string/],
      [{ type: 'Ready', status: 'true', reason: 'R' }, /status must be True, False or Unknown, not "true"/],
      [{ type: 'Ready', status: 'True' }, /reason must be a non-empty string/],
      [{ type: 'Ready', status: 'True', reason: '' }, /reason must be a non-empty string/],
      [{ type: 'Ready', status: 'True', reason: 'R', message: 3 }, /message must be a string/],
      [{ type: 'Ready', status: 'True', reason: 'R', observedGeneration: -1 }, /observedGeneration must be an integer >= 0, not -1/],
      [
        { type: 'Ready', status: 'False', reason: 'R', lastTransitionTime: '2026-03-01 10:00' },
        /lastTransitionTime must be an RFC 3339 time/,
      ],
      [
        { type: 'Ready', status: 'False', reason: 'R', lastTransitionTime: '2026-13-45T10:00:00Z' },
        /lastTransitionTime must be an RFC 3339 time/,
      ],
      [null, /a condition must be an object/],
    ];
    for (const [condition, message] of bad) {
      expect(() => setStatusCondition(conditions, condition as ConditionInput)).toThrow(InvalidObjectError);
      expect(() => setStatusCondition(conditions, condition as ConditionInput)).toThrow(message);
    }
    expect(() => setStatusCondition([], ready('True'), { scheduler: { now: () => Number.NaN } })).not.toThrow();
    expect(() => setStatusCondition([], { type: 'Ready', status: 'True', reason: 'R' }, { scheduler: { now: () => Number.NaN } })).toThrow(
      InvalidOptionsError,
    );
    expect(conditions).toEqual([ready('True')]);
  });
});

describe('removeStatusCondition', () => {
  it('should remove every condition of the type and say whether there was one', () => {
    const conditions = [ready('True'), other, ready('False')];
    expect(removeStatusCondition(conditions, 'Ready')).toBe(true);
    expect(conditions).toEqual([other]);
    expect(removeStatusCondition(conditions, 'Ready')).toBe(false);
    expect(removeStatusCondition([], 'Ready')).toBe(false);
    const next = produce(freeze([ready('True'), other], true), (d) => void removeStatusCondition(d, 'Degraded'));
    expect(next).toEqual([ready('True')]);
  });
});

describe('findStatusCondition and the predicates', () => {
  const table: [string, Condition[] | undefined, string, Condition | undefined, boolean, boolean, boolean][] = [
    // name, conditions, type, found, isTrue, isFalse, isPresentAndEqual(…, 'Unknown')
    ['should find a True condition', [other, ready('True')], 'Ready', ready('True'), true, false, false],
    ['should find a False condition', [ready('False')], 'Ready', ready('False'), false, true, false],
    ['should find an Unknown condition: neither true nor false', [ready('Unknown')], 'Ready', ready('Unknown'), false, false, true],
    ['should find nothing of another type', [other], 'Ready', undefined, false, false, false],
    ['should find nothing in an empty list', [], 'Ready', undefined, false, false, false],
    ['should find nothing in no list (an object without status)', undefined, 'Ready', undefined, false, false, false],
    ['should compare types exactly', [ready('True')], 'ready', undefined, false, false, false],
  ];
  it.each(table)('%s', (_, conditions, type, found, isTrue, isFalse, isUnknown) => {
    expect(findStatusCondition(conditions, type)).toEqual(found);
    expect(isStatusConditionTrue(conditions, type)).toBe(isTrue);
    expect(isStatusConditionFalse(conditions, type)).toBe(isFalse);
    expect(isStatusConditionPresentAndEqual(conditions, type, 'Unknown')).toBe(isUnknown);
  });

  it('should give the draft condition itself, so a change to it is a change of the object', () => {
    const next = produce(freeze({ status: { conditions: [ready('True')] } }, true), (d) => {
      findStatusCondition(d.status.conditions, 'Ready')!.message = 'edited';
    });
    expect(next.status.conditions[0].message).toBe('edited');
  });
});

describe('statusConditions', () => {
  it("should make a draft's missing status and conditions, and give the array that is there", () => {
    const next = produce(freeze({ metadata: { name: 'w' } } as { metadata: object; status?: { conditions?: Condition[] } }, true), (d) => {
      setStatusCondition(statusConditions(d), ready('True'));
    });
    expect(next.status).toEqual({ conditions: [ready('True')] });
    const obj = { status: { phase: 'Running', conditions: [other] } };
    expect(statusConditions(obj)).toBe(obj.status.conditions);
  });
});
