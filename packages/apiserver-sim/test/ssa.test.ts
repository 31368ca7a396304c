/**
 * Server-side apply over HTTP: when managedFields entries get a new `time` (as the API server's
 * managed-fields updater stamps them), and applies to the `status` subresource (conflicts with the
 * status owners, force, the entry's subresource). `Date.now` is a test clock so that times differ.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { req } from './helpers.ts';
import { pod } from '@rxinformer/testing';

const APPLY = 'application/apply-patch+yaml';
const T = (s: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, s)).toISOString().replace('.000Z', 'Z');

describe('server-side apply', () => {
  let sim: ApiServer;
  let clock = 0;
  const at = (s: number) => (clock = Date.parse(T(s)));
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 5 });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    at(0);
    jest.spyOn(Date, 'now').mockImplementation(() => clock);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const entry = (manager: string, operation: 'Apply' | 'Update', time: string | undefined, fieldsV1: unknown, subresource?: string) => ({
    manager,
    operation,
    apiVersion: 'v1',
    ...(time !== undefined ? { time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(subresource ? { subresource } : {}),
  });

  describe('managedFields time', () => {
    const cm = (name: string, manager: string, data: Record<string, string>) =>
      req(`${sim.url}/api/v1/namespaces/default/configmaps/${name}?fieldManager=${manager}`, {
        method: 'PATCH',
        contentType: APPLY,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
      });

    it('should stamp an apply entry when the apply changes the object, and only then', async () => {
      const first = await cm('timed', 'alice', { a: '1' });
      expect(first.code).toBe(201);
      expect(first.body.metadata.managedFields).toEqual([entry('alice', 'Apply', T(0), { 'f:data': { 'f:a': {} } })]);
      const rv1 = first.body.metadata.resourceVersion;

      // the same configuration again: nothing stored, no new revision, the old time
      at(10);
      const again = await cm('timed', 'alice', { a: '1' });
      expect(again.code).toBe(200);
      expect(again.body.metadata.resourceVersion).toBe(rv1);
      expect(sim.storage.resourceVersion).toBe(rv1);
      expect(again.body.metadata.managedFields).toEqual(first.body.metadata.managedFields);

      // the same value by another manager changes ownership only: stored (a new revision), but no
      // entry is stamped, and bob's new entry has no time at all
      at(20);
      const shared = await cm('timed', 'bob', { a: '1' });
      expect(shared.code).toBe(200);
      expect(Number(shared.body.metadata.resourceVersion)).toBeGreaterThan(Number(rv1));
      expect(shared.body.metadata.managedFields).toEqual([
        entry('alice', 'Apply', T(0), { 'f:data': { 'f:a': {} } }),
        entry('bob', 'Apply', undefined, { 'f:data': { 'f:a': {} } }),
      ]);

      // a changed value stamps the applier's entry, even with the same field set
      at(30);
      const grown = await cm('timed', 'alice', { a: '1', b: '2' });
      expect(grown.body.metadata.managedFields[1]).toEqual(entry('alice', 'Apply', T(30), { 'f:data': { 'f:a': {}, 'f:b': {} } }));
      at(40);
      const changed = await cm('timed', 'alice', { a: '1', b: '3' });
      expect(changed.body.metadata.managedFields).toEqual([
        entry('bob', 'Apply', undefined, { 'f:data': { 'f:a': {} } }),
        entry('alice', 'Apply', T(40), { 'f:data': { 'f:a': {}, 'f:b': {} } }),
      ]);

      // alice stops applying a, which bob still owns: the object stays as it was, so her smaller set
      // is stored without a new time
      at(50);
      const shrunk = await cm('timed', 'alice', { b: '3' });
      expect(shrunk.body.data).toEqual({ a: '1', b: '3' });
      expect(Number(shrunk.body.metadata.resourceVersion)).toBeGreaterThan(Number(changed.body.metadata.resourceVersion));
      expect(shrunk.body.metadata.managedFields).toEqual([
        entry('bob', 'Apply', undefined, { 'f:data': { 'f:a': {} } }),
        entry('alice', 'Apply', T(40), { 'f:data': { 'f:b': {} } }),
      ]);
    });

    it('should stamp an update entry when the write adds or changes a field, not when it only removes', async () => {
      const cms = `${sim.url}/api/v1/namespaces/default/configmaps`;
      const put = (data: Record<string, string>) =>
        req(`${cms}/upd?fieldManager=editor`, {
          method: 'PUT',
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'upd' }, data },
        });
      const created = await req(`${cms}?fieldManager=creator`, { method: 'POST', body: { metadata: { name: 'upd' }, data: { a: '1' } } });
      expect(created.body.metadata.managedFields).toEqual([entry('creator', 'Update', T(0), { 'f:data': { 'f:a': {} } })]);
      at(10);
      expect((await put({ a: '1', b: '2' })).body.metadata.managedFields).toEqual([
        created.body.metadata.managedFields[0],
        entry('editor', 'Update', T(10), { 'f:data': { 'f:b': {} } }),
      ]);
      at(20);
      const rewritten = await put({ a: '1', b: '3' });
      expect(rewritten.body.metadata.managedFields[1]).toEqual(entry('editor', 'Update', T(20), { 'f:data': { 'f:b': {} } }));
      // removing the creator's a: the creator's entry, left empty, goes; the editor keeps its time
      at(30);
      const removed = await put({ b: '3' });
      expect(Number(removed.body.metadata.resourceVersion)).toBeGreaterThan(Number(rewritten.body.metadata.resourceVersion));
      expect(removed.body.metadata.managedFields).toEqual([entry('editor', 'Update', T(20), { 'f:data': { 'f:b': {} } })]);
      // the same object again: a no-op, no revision
      at(40);
      const same = await put({ b: '3' });
      expect(same.body.metadata.resourceVersion).toBe(removed.body.metadata.resourceVersion);
      expect(sim.storage.resourceVersion).toBe(removed.body.metadata.resourceVersion);
      expect(same.body.metadata.managedFields).toEqual(removed.body.metadata.managedFields);
    });
  });

  describe('apply to the status subresource', () => {
    const pods = () => `${sim.url}/api/v1/namespaces/default/pods`;
    const applyStatus = (name: string, manager: string, status: Record<string, unknown>, force = false) =>
      req(`${pods()}/${name}/status?fieldManager=${manager}${force ? '&force=true' : ''}`, {
        method: 'PATCH',
        contentType: APPLY,
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, status },
      });

    it('should conflict with the kubelet on the status fields it owns, share equal values, and take them over when forced', async () => {
      await req(`${pods()}?fieldManager=creator`, { method: 'POST', body: pod('sa') });
      const cur = (await req(`${pods()}/sa`)).body;
      at(10);
      const kubelet = await req(`${pods()}/sa/status?fieldManager=kubelet`, {
        method: 'PUT',
        body: { ...cur, status: { ...cur.status, phase: 'Running', podIP: '10.0.0.1' } },
      });
      expect(kubelet.code).toBe(200);
      // podIPs follows podIP (the v1 conversion): the kubelet's write set both
      const podIPs = { 'k:{"ip":"10.0.0.1"}': { '.': {}, 'f:ip': {} } };
      const kubeletEntry = entry(
        'kubelet',
        'Update',
        T(10),
        { 'f:status': { 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': podIPs } },
        'status',
      );
      expect(kubelet.body.metadata.managedFields[1]).toEqual(kubeletEntry);
      const rv = sim.storage.resourceVersion;

      at(20);
      const refused = await applyStatus('sa', 'ctl', { phase: 'Failed' });
      expect(refused.code).toBe(409);
      expect(refused.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.phase',
        details: {
          causes: [
            {
              reason: 'FieldManagerConflict',
              message: 'conflict with "kubelet" with subresource "status" using v1',
              field: '.status.phase',
            },
          ],
        },
      });
      expect(sim.storage.resourceVersion).toBe(rv);
      expect((sim.storage.get('pods', 'default', 'sa') as any).status.phase).toBe('Running');

      // the kubelet's values, plus a field nobody owns: no conflict; the entry is the status subresource's
      at(30);
      const shared = await applyStatus('sa', 'ctl', { phase: 'Running', message: 'checked' });
      expect(shared.code).toBe(200);
      expect(shared.body.status).toMatchObject({ phase: 'Running', podIP: '10.0.0.1', message: 'checked' });
      expect(shared.body.metadata.managedFields.slice(1)).toEqual([
        kubeletEntry,
        entry('ctl', 'Apply', T(30), { 'f:status': { 'f:message': {}, 'f:phase': {} } }, 'status'),
      ]);

      at(40);
      const forced = await applyStatus('sa', 'ctl', { phase: 'Failed' }, true);
      expect(forced.code).toBe(200);
      // ctl's message, no longer applied and owned by nobody else, goes; the kubelet keeps its IPs only
      expect(forced.body.status).toEqual({ phase: 'Failed', qosClass: 'BestEffort', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] });
      expect(forced.body.metadata.managedFields.slice(1)).toEqual([
        entry('kubelet', 'Update', T(10), { 'f:status': { 'f:podIP': {}, 'f:podIPs': podIPs } }, 'status'),
        entry('ctl', 'Apply', T(40), { 'f:status': { 'f:phase': {} } }, 'status'),
      ]);
      // the kubelet now conflicts with ctl if it applies its old phase
      const back = await applyStatus('sa', 'kubelet', { phase: 'Running' });
      expect(back.body.message).toBe('Apply failed with 1 conflict: conflict with "ctl" with subresource "status": .status.phase');
    });

    it('should leave the spec alone and refuse a missing object with 404', async () => {
      await req(`${pods()}?fieldManager=creator`, { method: 'POST', body: pod('sb') });
      const r = await req(`${pods()}/sb/status?fieldManager=ctl`, {
        method: 'PATCH',
        contentType: APPLY,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'sb' },
          spec: { containers: [{ name: 'c', image: 'other:1' }] },
          status: { phase: 'Running' },
        },
      });
      expect(r.code).toBe(200);
      expect(r.body.spec.containers[0].image).toBe('nginx');
      expect(r.body.metadata.managedFields[1]).toEqual(entry('ctl', 'Apply', T(0), { 'f:status': { 'f:phase': {} } }, 'status'));
      const rv = sim.storage.resourceVersion;
      const missing = await applyStatus('nowhere', 'ctl', { phase: 'Running' });
      expect(missing.code).toBe(404);
      expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
      expect(sim.storage.resourceVersion).toBe(rv);
      expect(() => sim.storage.get('pods', 'default', 'nowhere')).toThrow('not found');
    });
  });
});
