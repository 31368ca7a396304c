import { describe, expect, it } from '@jest/globals';
import { type KubeObject } from '@rxinformer/core';
import type { Reconcile } from './request.ts';
import { checkReconcileResult, InvalidReconcileResultError, TerminalError, terminal } from './result.ts';

/**
 * Only type-checked: what a reconcile may and may not be (`tsc -b` fails if an expected error is
 * missing). An extra property beside a right one (`{ requeueAfterMs: 5, requeueAfter: 5 }`)
 * compiles — TypeScript has no exact types — and is refused at run time (below).
 */
function typeChecks(): Reconcile<KubeObject>[] {
  return [
    async () => undefined,
    async () => {},
    async () => ({ requeueAfterMs: 5 }),
    async () => ({ requeue: true }),
    async ({ object }) => (object === undefined ? undefined : { requeue: true, requeueAfterMs: 10 }),
    // @ts-expect-error a misspelt field does not compile
    async () => ({ requeueAfter: 5 }),
    // @ts-expect-error a number is not a result
    async () => 5000,
    // @ts-expect-error nor is a string of ms
    async () => ({ requeueAfterMs: '5' }),
    // @ts-expect-error a reconcile returns a promise
    () => undefined,
  ];
}

describe('checkReconcileResult', () => {
  it('should pass undefined and objects of requeue and requeueAfterMs', () => {
    expect(typeChecks()).toHaveLength(9);
    expect(checkReconcileResult('a', undefined)).toBeUndefined();
    expect(checkReconcileResult('a', {})).toBeUndefined();
    expect(checkReconcileResult('a', { requeue: false })).toBeUndefined();
    expect(checkReconcileResult('a', { requeueAfterMs: 5 })).toEqual({ afterMs: 5 });
    expect(checkReconcileResult('a', { requeueAfterMs: 0, requeue: true })).toEqual({ afterMs: 0 }); // the delay wins
    expect(checkReconcileResult('a', { requeue: true })).toBe('rateLimited');
  });

  it("should refuse what a JavaScript caller's reconcile may answer by mistake, naming the key", () => {
    const throwing = Object.defineProperty({}, 'requeue', {
      enumerable: true,
      get: () => {
        throw new Error('getter');
      },
    });
    const wrongs = [
      5000,
      'later',
      null,
      [],
      { requeueAfter: 5 },
      { requeueAfterMs: 5, retry: true },
      { requeueAfterMs: NaN },
      { requeueAfterMs: Infinity },
    ];
    for (const wrong of [...wrongs, { requeueAfterMs: -1 }, { requeueAfterMs: '5' }, { requeue: 'yes' }, throwing]) {
      let thrown: unknown;
      try {
        checkReconcileResult('ns/a', wrong);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidReconcileResultError);
      expect((thrown as InvalidReconcileResultError).key).toBe('ns/a');
    }
  });

  it('should say in the message what is wrong with the answer, not only in its cause', () => {
    expect(() => checkReconcileResult('ns/a', { requeueAfter: 5 })).toThrow(/: unknown properties: requeueAfter$/);
    expect(() => checkReconcileResult('ns/a', 5)).toThrow(/: a reconcile answers undefined or an object$/);
    expect(() => checkReconcileResult('ns/a', { requeueAfterMs: Infinity })).toThrow(/requeueAfterMs must be a finite number >= 0$/);
  });
});

describe('terminal', () => {
  it('should wrap a failure as a TerminalError saying its cause, and leave a TerminalError as it is', () => {
    const wrapped = terminal(new Error('spec.replicas is negative'));
    expect(wrapped).toBeInstanceOf(TerminalError);
    expect(wrapped.message).toBe('a terminal failure: spec.replicas is negative');
    expect(terminal(wrapped)).toBe(wrapped);
  });
});
