/**
 * Fidelity cases of names and namespaces that are not one path segment, sent as written (`raw`:
 * undici and fetch would resolve `.` and `..` before sending): what kube-apiserver answers to each
 * verb, and that nothing is read, written or deleted elsewhere.
 */
import type { FidelityCase, Transcript } from './transcript.ts';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data: { a: '1' },
});
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

/** Every verb on the item path `name` (as written in the URL; `decoded` is the object's name). */
async function itemVerbs(t: Transcript, name: string, decoded: string): Promise<void> {
  const item = `${t.path('configmaps')}/${name}`;
  const raw = { raw: true };
  await t.call(`GET ${name}`, 'GET', item, undefined, undefined, raw);
  await t.call(`GET ${name} watch=true`, 'GET', `${item}?watch=true`, undefined, undefined, raw);
  await t.call(`PUT ${name}`, 'PUT', item, cm(decoded), undefined, raw);
  await t.call(`PUT ${name}, another name in the body`, 'PUT', item, cm('keep'), undefined, raw);
  await t.call(`PATCH ${name}`, 'PATCH', item, { data: { b: '2' } }, MERGE, raw);
  await t.call(`PATCH ${name}, a bad body`, 'PATCH', item, '{bad', MERGE, raw);
  await t.call(`apply ${name}`, 'PATCH', `${item}?fieldManager=m`, cm(decoded), APPLY, raw);
  await t.call(`DELETE ${name}`, 'DELETE', item, undefined, undefined, raw);
  await t.call(`POST ${name}`, 'POST', item, cm('x'), undefined, raw);
}

export const pathCases: FidelityCase[] = [
  {
    name: 'names that are not one path segment: 400 for every verb, nothing else touched',
    script: async (t) => {
      await t.call('create keep', 'POST', t.path('configmaps'), cm('keep'));
      for (const name of ['.', '..', '%2E', '%2e%2e', 'a%25b']) await itemVerbs(t, name, decodeURIComponent(name));
      await t.call('a name holding %2F: more segments', 'GET', `${t.path('configmaps')}/a%2Fb`, undefined, undefined, { raw: true });
      await t.call('PUT a name holding %2F', 'PUT', `${t.path('configmaps')}/a%2Fb`, cm('a/b'), undefined, { raw: true });
      await t.call('a status subresource of ..', 'PATCH', `${t.path('pods')}/../status`, {}, MERGE, { raw: true });
      await t.call('a subresource ..', 'GET', `${t.path('pods')}/x/..`, undefined, undefined, { raw: true });
      await t.call('a cluster-scoped ..', 'GET', '/api/v1/nodes/..', undefined, undefined, { raw: true });
      await t.call('namespace ..', 'DELETE', '/api/v1/namespaces/..', undefined, undefined, { raw: true });
      await t.call('PUT without a name', 'PUT', `${t.path('configmaps')}/keep`, { apiVersion: 'v1', kind: 'ConfigMap', data: {} });
      for (const name of ['.', '..', 'a/b', 'a%b']) await t.call(`create named ${name}`, 'POST', t.path('configmaps'), cm(name));
      await t.call('still there', 'GET', t.path('configmaps'));
    },
  },
  {
    name: 'namespaces that are not one path segment: the storage key 500, the admission 500 on create',
    script: async (t) => {
      const raw = { raw: true };
      for (const ns of ['..', '.', '%2E%2E']) {
        for (const [group, resource] of [
          ['', 'configmaps'],
          ['', 'services'],
          ['', 'endpoints'],
          ['apps', 'deployments'],
          ['networking.k8s.io', 'ingresses'],
          ['events.k8s.io', 'events'],
        ])
          await t.call(
            `list ${resource} in ${ns}`,
            'GET',
            `${group ? `/apis/${group}` : '/api'}/v1/namespaces/${ns}/${resource}`,
            undefined,
            undefined,
            raw,
          );
        const cms = `/api/v1/namespaces/${ns}/configmaps`;
        await t.call(`watch in ${ns}, a bad resourceVersion`, 'GET', `${cms}?watch=true&resourceVersion=abc`, undefined, undefined, raw);
        await t.call(`list in ${ns}, a bad resourceVersion`, 'GET', `${cms}?resourceVersion=abc`, undefined, undefined, raw);
        await t.call(`GET in ${ns}`, 'GET', `${cms}/x`, undefined, undefined, raw);
        await t.call(`PUT in ${ns}`, 'PUT', `${cms}/x`, cm('x'), undefined, raw);
        await t.call(`PATCH in ${ns}`, 'PATCH', `${cms}/x`, {}, MERGE, raw);
        await t.call(`DELETE in ${ns}`, 'DELETE', `${cms}/x`, undefined, undefined, raw);
        await t.call(`DELETE the collection in ${ns}`, 'DELETE', cms, undefined, undefined, raw);
        await t.call(`create in ${ns}`, 'POST', cms, cm('x'), undefined, raw);
        await t.call(`create an invalid name in ${ns}`, 'POST', cms, cm('Not_Valid'), undefined, raw);
      }
      await t.call('create in a%25b', 'POST', '/api/v1/namespaces/a%25b/configmaps', cm('x'), undefined, raw);
      await t.call('list in a%25b', 'GET', '/api/v1/namespaces/a%25b/configmaps', undefined, undefined, raw);
      await t.call('create in a%2Fb: more segments', 'POST', '/api/v1/namespaces/a%2Fb/configmaps', cm('x'), undefined, raw);
      await t.call('create in a missing namespace, an invalid name', 'POST', '/api/v1/namespaces/nope/configmaps', cm('Not_Valid'));
    },
  },
  {
    name: 'owner references named ., .. or a/b are accepted',
    script: async (t) => {
      // what was stored, less managedFields (the simulator lists the fields of an atomic ownerReference)
      const stored = { mask: (b: any) => ({ name: b.metadata?.name, owners: b.metadata?.ownerReferences?.map((r: any) => r.name) }) };
      const owner = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, controller: true });
      for (const [i, name] of ['.', '..', 'a/b'].entries()) {
        const ownerReferences = [owner(name, `0e0e0e0e-0000-4000-8000-00000000000${i}`)];
        await t.call(`owner ${name}`, 'POST', t.path('configmaps'), cm(`o${i}`, { ownerReferences }), undefined, stored);
      }
    },
  },
];
