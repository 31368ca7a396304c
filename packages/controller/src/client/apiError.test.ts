import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { KubeApiError, NetworkError, type Status } from '@rxinformer/core';
import { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, toApiError } from './apiError.ts';

const status = (code: number, reason: string, message: string): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message,
});
const conflict = status(
  409,
  'Conflict',
  'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
);
const exists = status(409, 'AlreadyExists', 'configmaps "x" already exists');

describe('typed API errors', () => {
  it('should read like kubectl', () => {
    const e = new ApiError(409, { status: conflict });
    expect(String(e)).toBe(`Conflict: ${conflict.message}`);
    expect(e.message).toBe(`Conflict: ${conflict.message}`);
    expect(e).toBeInstanceOf(KubeApiError);
    expect(e).toMatchObject({ code: 409, reason: 'Conflict', status: conflict });
  });

  it("should tell Conflict from AlreadyExists through client-node's ApiException, whose body is the Status text", () => {
    const ex = (s: Status) => new ApiException(s.code!, `HTTP-Code: ${s.code}\nMessage: Unknown API Status Code!`, JSON.stringify(s), {});
    expect(isConflict(ex(conflict))).toBe(true);
    expect(isAlreadyExists(ex(conflict))).toBe(false);
    expect(isAlreadyExists(ex(exists))).toBe(true);
    expect(isConflict(ex(exists))).toBe(false);
    const converted = toApiError(ex(conflict));
    expect(converted).toBeInstanceOf(ApiError);
    expect(String(converted)).toBe(`Conflict: ${conflict.message}`);
  });

  it('should classify core KubeApiErrors and ApiErrors by code and reason', () => {
    const cases: [Status, (e: unknown) => boolean][] = [
      [status(404, 'NotFound', 'configmaps "x" not found'), isNotFound],
      [status(410, 'Expired', 'too old resource version'), isGone],
      [status(422, 'Invalid', 'ConfigMap "X" is invalid'), isInvalid],
      [status(403, 'Forbidden', 'configmaps is forbidden'), isForbidden],
    ];
    const all = [isNotFound, isGone, isInvalid, isForbidden, isConflict, isAlreadyExists];
    for (const [s, test] of cases)
      for (const e of [new KubeApiError(s.code!, { status: s }), new ApiError(s.code!, { status: s })])
        for (const t of all) expect([s.reason, t.name, t(e)]).toEqual([s.reason, t.name, t === test]);
  });

  it('should leave errors that are no API answer alone', () => {
    const net = new NetworkError('ConnectionRefused', 'refused');
    expect(toApiError(net)).toBe(net);
    expect(isNotFound(net)).toBe(false);
    expect(isConflict(new Error('409'))).toBe(false);
    expect(isNotFound({ code: 404 })).toBe(false); // no body: not an API answer
  });
});
