/**
 * Fidelity cases of LIST: pages and continue tokens, every resourceVersion rule, selectors, Table
 * and PartialObjectMetadataList output, and the errors of bad options.
 */
import { ACCEPT, noMessage, type FidelityCase, type Transcript } from './transcript.ts';

/** Creates ConfigMaps `names` (labelled `n=<index>`), in that order; resolves to the last answer's resourceVersion. */
export async function seed(t: Transcript, names: string[], labels: (i: number) => Record<string, string> = (i) => ({ n: String(i) })) {
  let rv = '';
  for (const [i, name] of names.entries()) {
    const a = await t.server.api.create(t.path('configmaps'), { metadata: { name, labels: labels(i) }, data: { i: String(i) } });
    t.record(`created ${name}`, a);
    rv = a.metadata.resourceVersion;
  }
  return rv;
}

const q = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;

export const listCases: FidelityCase[] = [
  {
    name: 'list pages: limit and continue, remainingItemCount, the same snapshot throughout',
    script: async (t) => {
      await seed(t, ['c', 'a', 'e', 'b', 'd']);
      const cms = t.path('configmaps');
      const first = await t.call('page 1', 'GET', `${cms}?limit=2`);
      await t.server.api.create(cms, { metadata: { name: 'aa' }, data: {} }); // after the snapshot: not in the next pages
      const second = await t.call('page 2', 'GET', `${cms}${q({ limit: '2', continue: first.body.metadata.continue })}`);
      await t.call('page 3', 'GET', `${cms}${q({ limit: '2', continue: second.body.metadata.continue })}`);
      await t.call('limit 0', 'GET', `${cms}?limit=0&labelSelector=n`);
      await t.call('negative limit', 'GET', `${cms}?limit=-1&labelSelector=n`);
      await t.call('limit with a selector', 'GET', `${cms}?limit=2&labelSelector=n%20in%20(1,3)`);
      await t.call(
        'continue with a resourceVersion',
        'GET',
        `${cms}${q({ continue: first.body.metadata.continue, resourceVersion: '5' })}`,
      );
      await t.call('malformed continue', 'GET', `${cms}?continue=bm9wZQ`, undefined, undefined, { mask: noMessage });
      await t.call(
        'continue with resourceVersionMatch',
        'GET',
        `${cms}${q({ continue: first.body.metadata.continue, resourceVersionMatch: 'NotOlderThan' })}`,
      );
      await t.call('all namespaces by label', 'GET', `/api/v1/configmaps?labelSelector=n%3D1`);
    },
  },
  {
    name: 'list resourceVersion rules: unset, 0, exact, NotOlderThan, too large, bad',
    script: async (t) => {
      const cms = t.path('configmaps');
      const rv1 = await seed(t, ['x', 'y']);
      await t.server.api.update(t.path('configmaps', 'x'), {
        ...(await t.server.api.get(t.path('configmaps', 'x'))),
        data: { i: 'changed' },
      });
      await t.server.api.delete(t.path('configmaps', 'y'));
      await t.call('unset', 'GET', cms);
      await t.call('0', 'GET', `${cms}?resourceVersion=0`);
      await t.call('0 with limit', 'GET', `${cms}?resourceVersion=0&limit=1`);
      await t.call('exact with limit', 'GET', `${cms}?resourceVersion=${rv1}&limit=1`);
      await t.call('Exact', 'GET', `${cms}?resourceVersion=${rv1}&resourceVersionMatch=Exact`);
      await t.call('NotOlderThan', 'GET', `${cms}?resourceVersion=${rv1}&resourceVersionMatch=NotOlderThan`);
      await t.call('an old resourceVersion alone', 'GET', `${cms}?resourceVersion=${rv1}`);
      await t.call('Exact 0', 'GET', `${cms}?resourceVersion=0&resourceVersionMatch=Exact`);
      await t.call('match without resourceVersion', 'GET', `${cms}?resourceVersionMatch=NotOlderThan`);
      await t.call('unknown match', 'GET', `${cms}?resourceVersion=1&resourceVersionMatch=Newest`);
      await t.call('not a number', 'GET', `${cms}?resourceVersion=abc`);
      await t.call('sendInitialEvents on a list', 'GET', `${cms}?sendInitialEvents=true`);
      await t.call(
        'far in the future',
        'GET',
        `${cms}?resourceVersion=${Number(rv1) + 1_000_000}&resourceVersionMatch=NotOlderThan`,
        undefined,
        undefined,
        { keep: ['retry-after'] },
      );
    },
  },
  {
    name: 'list selectors: labels and fields, and their errors',
    script: async (t) => {
      await seed(t, ['s1', 's2', 's3'], (i): Record<string, string> =>
        i === 2 ? { tier: 'web' } : { n: String(i), tier: i ? 'db' : 'web' },
      );
      const cms = t.path('configmaps');
      for (const sel of ['n=1', 'n==1', 'n!=1', 'n in (0,1)', 'n notin (0)', 'n', '!n', 'tier=web,n', 'n>0']) {
        await t.call(`labels ${sel}`, 'GET', `${cms}${q({ labelSelector: sel })}`);
      }
      for (const sel of ['metadata.name=s2', 'metadata.name!=s2', 'metadata.namespace=' + t.ns, 'metadata.name=s2,metadata.name=s3']) {
        await t.call(`fields ${sel}`, 'GET', `${cms}${q({ fieldSelector: sel })}`);
      }
      await t.call('unknown field', 'GET', `${cms}${q({ fieldSelector: 'spec.nope=1' })}`);
      await t.call('bad field selector', 'GET', `${cms}${q({ fieldSelector: 'metadata.name' })}`);
      // core's parser words its errors as apimachinery's: the messages are compared too
      for (const sel of ['n in', 'n=a b', 'n in (a', 'n>x', '-n', 'n=-a', 'n in (-b,-a)', 'in (a)', 'n,', 'n=a\0b', 'n=a \0junk'])
        await t.call(`label selector ${JSON.stringify(sel)}`, 'GET', `${cms}${q({ labelSelector: sel })}`);
    },
  },
  {
    name: 'list as Table and as PartialObjectMetadataList, with Accept fallbacks',
    script: async (t) => {
      await seed(t, ['t1', 't2']);
      const cms = t.path('configmaps');
      await t.call('Table', 'GET', `${cms}?limit=1`, undefined, { accept: ACCEPT.table });
      await t.call('Table v1beta1', 'GET', cms, undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
      await t.call('metadata list', 'GET', cms, undefined, { accept: ACCEPT.metadataList });
      await t.call('metadata for a list (object type)', 'GET', cms, undefined, { accept: ACCEPT.metadata });
      await t.call('only metadata', 'GET', cms, undefined, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
      await t.call('kubectl Accept', 'GET', `${cms}?limit=500`, undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      });
      await t.call('unsupported Accept', 'GET', cms, undefined, { accept: 'text/html' });
    },
  },
];
