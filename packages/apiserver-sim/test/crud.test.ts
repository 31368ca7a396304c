import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { req } from './helpers.ts';
import { flushTo, pod, testScheduler } from '@rxinformer/testing';

describe('CRUD', () => {
  let sim: ApiServer;
  let pods: string;
  const ts = testScheduler(); // grace periods and the namespace controller's passes run in virtual time
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 11, scheduler: ts });
    pods = `${sim.url}/api/v1/namespaces/default/pods`;
  });
  afterAll(() => sim.close());

  it('should fill metadata on create like a real server', async () => {
    const r = await req(pods, { method: 'POST', body: pod('m1', { labels: { a: 'b' } }) });
    expect(r.code).toBe(201);
    const m = r.body.metadata;
    expect(m.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(m.resourceVersion).toBe(sim.storage.resourceVersion);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(m.namespace).toBe('default');
    expect(m.generation).toBe(1);
    expect(m.managedFields[0]).toMatchObject({ operation: 'Update', fieldsType: 'FieldsV1', apiVersion: 'v1' });
    expect(r.body.status.phase).toBe('Pending');
    const g = await req(`${pods}/m1`);
    expect(g.body).toEqual(r.body);
  });

  it('should generate names from generateName', async () => {
    const r = await req(pods, { method: 'POST', body: { metadata: { generateName: 'web-' }, spec: { containers: [] } } });
    expect(r.code).toBe(201);
    expect(r.body.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(r.body.metadata.generateName).toBe('web-');
  });

  it('should answer 409 AlreadyExists, 404 NotFound and 409 Conflict on a stale update', async () => {
    const dup = await req(pods, { method: 'POST', body: pod('m1') });
    expect(dup.code).toBe(409);
    expect(dup.body.reason).toBe('AlreadyExists');
    const missing = await req(`${pods}/nope`);
    expect(missing.code).toBe(404);
    expect(missing.body).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'pods "nope" not found',
      details: { name: 'nope', kind: 'pods' },
    });
    const cur = (await req(`${pods}/m1`)).body;
    const ok = await req(`${pods}/m1`, { method: 'PUT', body: { ...cur, metadata: { ...cur.metadata, labels: { a: 'c' } } } });
    expect(ok.code).toBe(200);
    expect(Number(ok.body.metadata.resourceVersion)).toBeGreaterThan(Number(cur.metadata.resourceVersion));
    const stale = await req(`${pods}/m1`, { method: 'PUT', body: { ...cur, metadata: { ...cur.metadata, labels: { a: 'd' } } } });
    expect(stale.code).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified');
    expect((await req(`${pods}/m1`)).body.metadata.labels).toEqual({ a: 'c' });
  });

  it('should keep uid and creationTimestamp and bump generation only when spec changes', async () => {
    const d = `${sim.url}/apis/apps/v1/namespaces/default/deployments`;
    const c = await req(d, { method: 'POST', body: { metadata: { name: 'dep' }, spec: { replicas: 1 } } });
    expect(c.body.metadata.generation).toBe(1);
    const labels = await req(`${d}/dep`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { x: 'y' }, uid: c.body.metadata.uid } },
    });
    expect(labels.body.metadata.generation).toBe(1);
    const spec = await req(`${d}/dep`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { spec: { replicas: 3 } } });
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body.metadata.uid).toBe(c.body.metadata.uid);
    expect(spec.body.metadata.creationTimestamp).toBe(c.body.metadata.creationTimestamp);
  });

  it('should apply JSON patch, merge patch and strategic merge patch', async () => {
    await req(pods, {
      method: 'POST',
      body: {
        metadata: { name: 'pp', labels: { a: '1' } },
        spec: {
          containers: [
            { name: 'a', image: 'x:1' },
            { name: 'b', image: 'y:1' },
          ],
        },
      },
    });
    const jp = await req(`${pods}/pp`, {
      method: 'PATCH',
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: '/metadata/labels/a', value: '1' },
        { op: 'replace', path: '/metadata/labels/a', value: '2' },
      ],
    });
    expect(jp.code).toBe(200);
    expect(jp.body.metadata.labels.a).toBe('2');
    const failed = await req(`${pods}/pp`, {
      method: 'PATCH',
      contentType: 'application/json-patch+json',
      body: [{ op: 'test', path: '/metadata/labels/a', value: 'nope' }],
    });
    expect(failed.code).toBe(422);
    const mp = await req(`${pods}/pp`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { a: null, b: 'x' } } },
    });
    expect(mp.body.metadata.labels).toEqual({ b: 'x' });
    const smp = await req(`${pods}/pp`, {
      method: 'PATCH',
      contentType: 'application/strategic-merge-patch+json',
      body: { spec: { containers: [{ name: 'b', image: 'y:2' }] } },
    });
    expect(smp.code).toBe(200);
    expect(smp.body.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['a=x:1', 'b=y:2']);
  });

  it('should create or update with server-side apply', async () => {
    const cm = `${sim.url}/api/v1/namespaces/default/configmaps/applied?fieldManager=test&force=true`;
    const first = await req(cm, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } },
    });
    expect(first.code).toBe(201);
    expect(first.body.metadata.managedFields[0]).toMatchObject({ manager: 'test', operation: 'Apply' });
    const second = await req(cm, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '2' } },
    });
    expect(second.code).toBe(200);
    expect(second.body.data).toEqual({ a: '2' });
    // the same configuration again is a no-op; the same values by another manager only add its entry
    const again = await req(cm, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '2' } },
    });
    expect(again.body.metadata.resourceVersion).toBe(second.body.metadata.resourceVersion);
    const shared = await req(cm.replace('fieldManager=test', 'fieldManager=other'), {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '2' } },
    });
    expect(shared.body.metadata.resourceVersion).not.toBe(second.body.metadata.resourceVersion);
    expect(shared.body.metadata.managedFields.map((e: any) => e.manager)).toEqual(['test', 'other']);
  });

  it('should answer 409 Conflict when an apply changes fields another manager owns, unless forced', async () => {
    const url = (manager: string, force = false) =>
      `${sim.url}/api/v1/namespaces/default/configmaps/owned?fieldManager=${manager}${force ? '&force=true' : ''}`;
    const apply = (manager: string, data: Record<string, string>, force = false) =>
      req(url(manager, force), {
        method: 'PATCH',
        contentType: 'application/apply-patch+yaml',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned' }, data },
      });
    expect((await apply('alice', { a: '1', b: '1' })).code).toBe(201);
    const rv = sim.storage.resourceVersion;
    const refused = await apply('bob', { a: '2' });
    expect(refused.code).toBe(409);
    expect(refused.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }] },
    });
    expect(sim.storage.resourceVersion).toBe(rv);
    expect((sim.storage.get('configmaps', 'default', 'owned') as any).data).toEqual({ a: '1', b: '1' });
    // the same value shares the field: no conflict
    expect((await apply('bob', { a: '1', c: '3' })).code).toBe(200);
    const forced = await apply('bob', { a: '2' }, true);
    expect(forced.code).toBe(200);
    // bob's new configuration drops c, which only bob owned: it goes; alice's b stays
    expect(forced.body.data).toEqual({ a: '2', b: '1' });
    const fields = Object.fromEntries(
      forced.body.metadata.managedFields.map((e: any) => [e.manager, Object.keys(e.fieldsV1['f:data']).sort()]),
    );
    expect(fields).toEqual({ alice: ['f:b'], bob: ['f:a'] });
    // alice lost .data.a: now she conflicts with bob
    expect((await apply('alice', { a: '1', b: '1' })).body.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "bob"', field: '.data.a' },
    ]);
    // fields written by an Update (here a POST) are owned too
    const cms = `${sim.url}/api/v1/namespaces/default/configmaps`;
    expect(
      (await req(`${cms}?fieldManager=kubectl-create`, { method: 'POST', body: { metadata: { name: 'made' }, data: { k: 'v' } } })).code,
    ).toBe(201);
    const r = await req(`${cms}/made?fieldManager=ci`, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made' }, data: { k: 'w' } },
    });
    expect(r.code).toBe(409);
    expect(r.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.k');
  });

  it('should give a PUT only the fields it changed, taken from their earlier owner', async () => {
    const cms = `${sim.url}/api/v1/namespaces/default/configmaps`;
    const created = await req(`${cms}?fieldManager=creator`, {
      method: 'POST',
      body: { metadata: { name: 'put-owned' }, data: { a: '1', b: '2' } },
    });
    const put = await req(`${cms}/put-owned?fieldManager=editor`, {
      method: 'PUT',
      body: { ...created.body, data: { a: 'edited', b: '2', c: '3' } },
    });
    expect(put.code).toBe(200);
    const fields = Object.fromEntries(
      put.body.metadata.managedFields.map((e: any) => [e.manager, Object.keys(e.fieldsV1['f:data']).sort()]),
    );
    expect(fields).toEqual({ creator: ['f:b'], editor: ['f:a', 'f:c'] });
  });

  it('should refuse bad input without changing stored state', async () => {
    const rv = sim.storage.resourceVersion;
    const malformed = await req(pods, { method: 'POST', rawBody: '{"metadata": {"name": ' });
    expect(malformed.code).toBe(400);
    expect(malformed.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    const badName = await req(pods, { method: 'POST', body: pod('Bad_Name') });
    expect(badName.code).toBe(422);
    expect(badName.body.reason).toBe('Invalid');
    expect(badName.body.details.causes[0].field).toBe('metadata.name');
    const noName = await req(pods, { method: 'POST', body: { spec: {} } });
    expect(noName.code).toBe(422);
    expect(noName.body.details.causes[0]).toMatchObject({ reason: 'FieldValueRequired', field: 'metadata.name' });
    const wrongNs = await req(pods, { method: 'POST', body: { metadata: { name: 'z', namespace: 'elsewhere' } } });
    expect(wrongNs.code).toBe(400);
    const noNs = await req(`${sim.url}/api/v1/namespaces/missing/pods`, { method: 'POST', body: pod('z', { namespace: null }) });
    expect(noNs.code).toBe(404);
    const unknown = await req(`${sim.url}/api/v1/namespaces/default/widgets`);
    expect(unknown.code).toBe(404);
    expect(unknown.body.message).toBe('the server could not find the requested resource');
    const badPatchType = await req(`${pods}/m1`, { method: 'PATCH', contentType: 'text/plain', rawBody: 'x' });
    expect(badPatchType.code).toBe(415);
    const badPatchBody = await req(`${pods}/m1`, { method: 'PATCH', contentType: 'application/merge-patch+json', rawBody: '{nope' });
    expect(badPatchBody.code).toBe(400);
    const renamed = await req(`${pods}/m1`, { method: 'PUT', body: { metadata: { name: 'other' } } });
    expect(renamed.code).toBe(400);
    const badBodyType = await req(pods, { method: 'POST', body: [1, 2] });
    expect(badBodyType.code).toBe(400);
    const wrongKind = await req(pods, { method: 'POST', body: { kind: 'Service', apiVersion: 'v1', metadata: { name: 'k' } } });
    expect(wrongKind.code).toBe(400);
    const method = await req(`${pods}/m1`, { method: 'POST', body: pod('m1') });
    expect(method.code).toBe(405);
    expect(sim.storage.resourceVersion).toBe(rv);
  });

  it('should delete at once, or after the grace period, and hold deletion for finalizers', async () => {
    const plain = await req(`${pods}/m1`, { method: 'DELETE', body: { propagationPolicy: 'Background' } });
    expect(plain.code).toBe(200);
    expect(plain.body.kind).toBe('Pod');
    expect((await req(`${pods}/m1`)).code).toBe(404);

    await req(pods, { method: 'POST', body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } } });
    const marked = await req(`${pods}/fin`, { method: 'DELETE' });
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect((await req(`${pods}/fin`)).code).toBe(200);
    const released = await req(`${pods}/fin`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
    expect(released.code).toBe(200);
    expect((await req(`${pods}/fin`)).code).toBe(404);

    await req(pods, { method: 'POST', body: pod('graceful') });
    const deleted = ts.now();
    const g = await req(`${pods}/graceful?gracePeriodSeconds=1`, { method: 'DELETE' });
    expect(g.body.metadata.deletionGracePeriodSeconds).toBe(1);
    flushTo(ts, deleted + 999);
    expect((await req(`${pods}/graceful`)).code).toBe(200);
    flushTo(ts, deleted + 1000);
    expect((await req(`${pods}/graceful`)).code).toBe(404);

    const cm = `${sim.url}/api/v1/namespaces/default/configmaps`;
    await req(cm, { method: 'POST', body: { metadata: { name: 'pre' } } });
    const pre = await req(`${cm}/pre`, { method: 'DELETE', body: { preconditions: { uid: 'wrong' } } });
    expect(pre.code).toBe(409);
    const ok = await req(`${cm}/pre`, { method: 'DELETE' });
    expect(ok.body).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  it('should serve custom resources once their CRD is created, and remove them with it', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    const crds = `${sim.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
    expect((await req(crds, { method: 'POST', body: crd })).code).toBe(201);
    const groups = await req(`${sim.url}/apis`);
    expect(groups.body.groups.map((g: any) => g.name)).toContain('example.com');
    const list = await req(`${sim.url}/apis/example.com/v1`);
    expect(list.body.resources[0]).toMatchObject({ name: 'widgets', kind: 'Widget', namespaced: true, shortNames: ['wd'] });
    const w = `${sim.url}/apis/example.com/v1/namespaces/default/widgets`;
    const created = await req(w, {
      method: 'POST',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
    });
    expect(created.code).toBe(201);
    expect(
      (await req(`${w}/w1`, { method: 'PATCH', contentType: 'application/strategic-merge-patch+json', body: { spec: { size: 2 } } })).code,
    ).toBe(415);
    expect((await req(w)).body.items).toHaveLength(1);
    expect((await req(`${crds}/widgets.example.com`, { method: 'DELETE' })).code).toBe(200);
    expect((await req(w)).code).toBe(404);
    const bad = await req(crds, { method: 'POST', body: { ...crd, metadata: { name: 'wrong.example.com' } } });
    expect(bad.code).toBe(422);
  });

  it('should set metadata.generation only for kinds whose registry keeps it (not services)', async () => {
    const svc = await req(`${sim.url}/api/v1/namespaces/default/services`, {
      method: 'POST',
      body: { metadata: { name: 'svc1' }, spec: { ports: [{ port: 80 }] } },
    });
    expect(svc.code).toBe(201);
    expect(svc.body.metadata.generation).toBeUndefined();
    const changed = await req(`${sim.url}/api/v1/namespaces/default/services/svc1`, {
      method: 'PUT',
      body: { ...svc.body, spec: { ports: [{ port: 81 }] } },
    });
    expect(changed.body.metadata.generation).toBeUndefined();
    const deploy = await req(`${sim.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      body: { metadata: { name: 'd1' }, spec: { replicas: 1 } },
    });
    expect(deploy.body.metadata.generation).toBe(1);
  });

  it('should serve namespaces without deletecollection', async () => {
    const core = await req(`${sim.url}/api/v1`);
    const ns = core.body.resources.find((r: any) => r.name === 'namespaces');
    expect(ns.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    const all = await req(`${sim.url}/api/v1/namespaces`, { method: 'DELETE' });
    expect(all.code).toBe(405);
    expect(all.body.reason).toBe('MethodNotAllowed');
    expect((await req(`${sim.url}/api/v1/namespaces/default`)).code).toBe(200);
  });

  it('should serve discovery and the minimal OpenAPI document', async () => {
    const v = await req(`${sim.url}/version`);
    expect(v.body).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0' });
    expect((await req(`${sim.url}/api`)).body.versions).toEqual(['v1']);
    const core = await req(`${sim.url}/api/v1`);
    const names = core.body.resources.map((r: any) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(['pods', 'pods/status', 'namespaces', 'services', 'configmaps', 'secrets', 'nodes', 'events']),
    );
    const apps = await req(`${sim.url}/apis/apps/v1`);
    expect(apps.body.resources.map((r: any) => r.name)).toEqual(
      expect.arrayContaining(['deployments', 'replicasets', 'statefulsets', 'daemonsets']),
    );
    const r = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(r.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect([...new Uint8Array(await r.arrayBuffer())]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
  });

  it('should update and read the status subresource separately', async () => {
    await req(pods, { method: 'POST', body: pod('st') });
    const cur = (await req(`${pods}/st`)).body;
    const s = await req(`${pods}/st/status`, {
      method: 'PUT',
      body: { ...cur, status: { phase: 'Running' }, spec: { ...cur.spec, nodeName: 'ignored' } },
    });
    expect(s.code).toBe(200);
    expect(s.body.status.phase).toBe('Running');
    expect(s.body.spec.nodeName).toBeUndefined();
    const main = await req(`${pods}/st`, { method: 'PUT', body: { ...s.body, status: { phase: 'Failed' } } });
    expect(main.body.status.phase).toBe('Running');
  });

  it('should delete a namespace with its contents', async () => {
    await req(`${sim.url}/api/v1/namespaces`, { method: 'POST', body: { metadata: { name: 'doomed' } } });
    await req(`${sim.url}/api/v1/namespaces/doomed/pods`, { method: 'POST', body: pod('x', { namespace: 'doomed' }) });
    expect((await req(`${sim.url}/api/v1/namespaces/doomed`, { method: 'DELETE' })).code).toBe(200);
    flushTo(ts, ts.now()); // the namespace controller's pass, due at once
    expect((await req(`${sim.url}/api/v1/namespaces/doomed/pods`)).body.items).toEqual([]);
    expect((await req(`${sim.url}/api/v1/namespaces/doomed`)).code).toBe(404);
  });
});
