/**
 * Fidelity cases of the write verbs (create, update, the four patches, delete) and of get, with
 * their error answers, on ConfigMaps (a kind a real server neither defaults nor gives a status).
 */
import { ACCEPT, noMessage, type FidelityCase } from './transcript.ts';

const cm = (name: string, data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

/**
 * An events.k8s.io/v1 Event less two known differences: kube-apiserver's conversion from the
 * core/v1 Event it stores adds `deprecatedSource: {}` and null `deprecated*Timestamp`s, and it owns
 * `regarding` (an atomic struct) whole in managedFields, where the simulator lists its fields.
 */
function eventV1Mask(event: any): unknown {
  const { deprecatedSource: _s, deprecatedFirstTimestamp: _f, deprecatedLastTimestamp: _l, ...rest } = event ?? {};
  for (const entry of rest.metadata?.managedFields ?? []) if (entry.fieldsV1?.['f:regarding']) entry.fieldsV1['f:regarding'] = {};
  return rest;
}

export const writeCases: FidelityCase[] = [
  {
    name: 'create, generateName, get, and their errors',
    script: async (t) => {
      const cms = t.path('configmaps');
      await t.call('create', 'POST', cms, cm('one', { a: '1' }, { labels: { app: 'x' }, annotations: { note: 'n' } }));
      await t.call('create generateName', 'POST', cms, { metadata: { generateName: 'gen-' }, data: { g: '1' } });
      await t.call('create existing', 'POST', cms, cm('one'));
      await t.call('create invalid name', 'POST', cms, cm('Not_Valid'));
      await t.call('create without a name', 'POST', cms, { metadata: {}, data: { a: '1' } });
      await t.call('create in another namespace than the path', 'POST', cms, cm('elsewhere', {}, { namespace: 'other' }));
      await t.call('create bad JSON', 'POST', cms, '{"metadata": ', undefined, { mask: noMessage });
      await t.call('create a list kind', 'POST', cms, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
      await t.call('get', 'GET', t.path('configmaps', 'one'));
      await t.call('get missing', 'GET', t.path('configmaps', 'missing'));
      await t.call('get unknown resource', 'GET', t.path('nothings', 'x'));
      await t.call('get unknown group', 'GET', '/apis/nothing.example.com/v1/things');
      await t.call('get as metadata', 'GET', t.path('configmaps', 'one'), undefined, { accept: ACCEPT.metadata });
      await t.call('get as Table', 'GET', t.path('configmaps', 'one'), undefined, { accept: ACCEPT.table });
      await t.call('get with watch=true on a name', 'GET', `${t.path('configmaps', 'one')}?watch=true`);
    },
  },
  {
    name: 'update: optimistic concurrency, no-op, unconditional, missing',
    script: async (t) => {
      const cms = t.path('configmaps');
      const created = (await t.call('create', 'POST', cms, cm('u', { a: '1' }))).body;
      const updated = (await t.call('update', 'PUT', t.path('configmaps', 'u'), { ...created, data: { a: '2' } })).body;
      await t.call('update stale', 'PUT', t.path('configmaps', 'u'), { ...created, data: { a: '3' } });
      await t.call('update unchanged', 'PUT', t.path('configmaps', 'u'), updated);
      const { resourceVersion: _, ...meta } = updated.metadata;
      await t.call('update without resourceVersion', 'PUT', t.path('configmaps', 'u'), { ...updated, metadata: meta, data: { a: '4' } });
      await t.call('update missing', 'PUT', t.path('configmaps', 'nope'), cm('nope'));
      await t.call('update renaming', 'PUT', t.path('configmaps', 'u'), { ...updated, metadata: { ...meta, name: 'other' } });
      await t.call('update bad resourceVersion', 'PUT', t.path('configmaps', 'u'), {
        ...updated,
        metadata: { ...meta, resourceVersion: 'abc' },
      });
    },
  },
  {
    name: 'json, merge and strategic merge patches',
    script: async (t) => {
      const one = t.path('configmaps', 'p');
      await t.call('create', 'POST', t.path('configmaps'), cm('p', { a: '1', b: '2' }, { finalizers: ['x.io/a'] }));
      const json = { 'content-type': 'application/json-patch+json' };
      const merge = { 'content-type': 'application/merge-patch+json' };
      const strategic = { 'content-type': 'application/strategic-merge-patch+json' };
      await t.call(
        'json patch',
        'PATCH',
        one,
        [
          { op: 'replace', path: '/data/a', value: 'j' },
          { op: 'add', path: '/data/c', value: '3' },
        ],
        json,
      );
      await t.call('json patch failing test', 'PATCH', one, [{ op: 'test', path: '/data/a', value: 'nope' }], json);
      await t.call('json patch bad path', 'PATCH', one, [{ op: 'remove', path: '/data/zzz' }], json);
      await t.call('merge patch', 'PATCH', one, { data: { b: null, d: '4' }, metadata: { finalizers: ['x.io/b'] } }, merge);
      // the order strategic merge gives a merged set is a known difference: compared sorted
      const sortedFinalizers = (b: any) => ({ ...b, metadata: { ...b.metadata, finalizers: [...(b.metadata?.finalizers ?? [])].sort() } });
      await t.call('strategic patch', 'PATCH', one, { data: { e: '5' }, metadata: { finalizers: ['x.io/c'] } }, strategic, {
        mask: sortedFinalizers,
      });
      await t.call(
        'strategic patch stale resourceVersion',
        'PATCH',
        one,
        { metadata: { resourceVersion: '1' }, data: { f: '6' } },
        strategic,
      );
      await t.call('merge patch missing', 'PATCH', t.path('configmaps', 'missing'), { data: { a: '1' } }, merge);
      await t.call('patch unsupported type', 'PATCH', one, { data: {} }, { 'content-type': 'text/plain' });
      await t.call('merge patch not JSON', 'PATCH', one, '{', merge, { mask: noMessage });
      await t.call('merge patch to no change', 'PATCH', one, { data: { e: '5' } }, merge, { mask: sortedFinalizers });
      await t.call('release the finalizers', 'PATCH', one, { metadata: { finalizers: null } }, merge);
    },
  },
  {
    name: 'json patch resourceVersion preconditions',
    script: async (t) => {
      const one = t.path('configmaps', 'rv');
      const created = (await t.call('create', 'POST', t.path('configmaps'), cm('rv'))).body;
      const stale = created.metadata.resourceVersion;
      const json = { 'content-type': 'application/json-patch+json' };
      await t.call('another writer', 'PATCH', one, { data: { a: 'other' } }, { 'content-type': 'application/merge-patch+json' });
      const set = (op: string) => ({ op, path: '/metadata/resourceVersion', value: stale });
      const change = { op: 'add', path: '/data/b', value: 'x' };
      await t.call('stale resourceVersion set first', 'PATCH', one, [set('replace'), change], json);
      await t.call(
        'stale resourceVersion set last, after a remove',
        'PATCH',
        one,
        [{ op: 'remove', path: '/metadata/resourceVersion' }, change, set('add')],
        json,
      );
      await t.call('stale resourceVersion tested', 'PATCH', one, [set('test'), change], json);
      await t.call(
        'metadata replaced, then the stale resourceVersion added',
        'PATCH',
        one,
        [{ op: 'replace', path: '/metadata', value: { name: 'rv' } }, set('add')],
        json,
      );
      await t.call(
        'stale resourceVersion set, then removed: unconditional',
        'PATCH',
        one,
        [set('replace'), { op: 'remove', path: '/metadata/resourceVersion' }, change],
        json,
      );
    },
  },
  {
    name: 'server-side apply: create, ownership, conflicts, force',
    script: async (t) => {
      const one = t.path('configmaps', 'ssa');
      const apply = { 'content-type': 'application/apply-patch+yaml' };
      await t.call('apply creates', 'PATCH', `${one}?fieldManager=alice`, cm('ssa', { a: '1', b: '2' }), apply);
      await t.call('apply same values by another manager', 'PATCH', `${one}?fieldManager=bob`, cm('ssa', { a: '1' }), apply);
      await t.call('apply conflicting', 'PATCH', `${one}?fieldManager=carol`, cm('ssa', { a: 'c', b: 'c' }), apply);
      await t.call('apply forced', 'PATCH', `${one}?fieldManager=carol&force=true`, cm('ssa', { a: 'c' }), apply);
      await t.call('apply dropping a field', 'PATCH', `${one}?fieldManager=alice`, cm('ssa', { b: '2' }), apply);
      await t.call('apply without fieldManager', 'PATCH', one, cm('ssa', { a: '1' }), apply);
      await t.call(
        'apply with force on another patch type',
        'PATCH',
        `${one}?force=true`,
        { data: {} },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      await t.call('apply of another name', 'PATCH', `${one}?fieldManager=alice`, cm('other'), apply);
      await t.call('update after applies', 'PUT', `${one}?fieldManager=dave`, {
        ...(await t.server.api.get(one)),
        data: { b: 'dave' },
      });
    },
  },
  {
    name: 'a patched uid, a bad dryRun or fieldValidation: 422 Invalid',
    script: async (t) => {
      await t.call('create a configmap', 'POST', t.path('configmaps'), cm('u'));
      const merge = { 'content-type': 'application/merge-patch+json' };
      await t.call('merge patch of its uid', 'PATCH', t.path('configmaps', 'u'), { metadata: { uid: 'other' } }, merge);
      await t.call('create with dryRun=Sometimes', 'POST', `${t.path('configmaps')}?dryRun=Sometimes`, cm('v'));
      await t.call('patch with dryRun=Sometimes', 'PATCH', `${t.path('configmaps', 'u')}?dryRun=Sometimes`, { data: { b: '2' } }, merge);
      await t.call('create with fieldValidation=Loose', 'POST', `${t.path('configmaps')}?fieldValidation=Loose`, cm('w'));
      await t.call('get with dryRun=Sometimes (not a write option)', 'GET', `${t.path('configmaps', 'u')}?dryRun=Sometimes`);
    },
  },
  {
    name: 'delete: answers, preconditions, missing',
    script: async (t) => {
      const cms = t.path('configmaps');
      const created = (await t.call('create', 'POST', cms, cm('d'))).body;
      await t.call('create held', 'POST', cms, cm('held', { h: '1' }, { finalizers: ['x.io/hold'] }));
      const opts = (o: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'DeleteOptions', ...o });
      await t.call('delete with a wrong uid', 'DELETE', t.path('configmaps', 'd'), opts({ preconditions: { uid: 'nope' } }));
      await t.call(
        'delete with a stale resourceVersion',
        'DELETE',
        t.path('configmaps', 'd'),
        opts({ preconditions: { resourceVersion: '1' } }),
      );
      await t.call('delete', 'DELETE', t.path('configmaps', 'd'), opts({ preconditions: { uid: created.metadata.uid } }));
      await t.call('delete again', 'DELETE', t.path('configmaps', 'd'));
      await t.call('delete held by a finalizer', 'DELETE', t.path('configmaps', 'held'));
      await t.call('get held', 'GET', t.path('configmaps', 'held'));
      await t.call('delete held again', 'DELETE', t.path('configmaps', 'held'));
      await t.call('bad propagationPolicy', 'DELETE', t.path('configmaps', 'held'), opts({ propagationPolicy: 'Sideways' }));
      await t.call(
        'release',
        'PATCH',
        t.path('configmaps', 'held'),
        { metadata: { finalizers: null } },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      await t.call('gone', 'GET', t.path('configmaps', 'held'));
      await t.call('create two', 'POST', cms, cm('c1', { c: '1' }, { labels: { del: 'y' } }));
      await t.call('create three', 'POST', cms, cm('c2', { c: '2' }, { labels: { del: 'y' } }));
      await t.call('delete collection', 'DELETE', `${cms}?labelSelector=del%3Dy`);
      await t.call('list after', 'GET', cms);
    },
  },
  {
    name: 'events.k8s.io/v1 events: create, get, series patch, list',
    script: async (t) => {
      const events = `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`;
      const merge = { 'content-type': 'application/merge-patch+json' };
      const mask = { mask: eventV1Mask };
      await t.call(
        'create',
        'POST',
        events,
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'x.1' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          reportingController: 'example.com/ctl',
          reportingInstance: 'ctl-1',
          action: 'Replicate',
          reason: 'Replicated',
          type: 'Normal',
          note: 'copied',
          regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: t.ns, name: 'x' },
        },
        undefined,
        mask,
      );
      await t.call('get', 'GET', `${events}/x.1`, undefined, undefined, mask);
      const series = { series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' } };
      await t.call('series', 'PATCH', `${events}/x.1`, series, merge, mask);
      await t.call('list', 'GET', events, undefined, undefined, { mask: (l: any) => ({ ...l, items: l.items.map(eventV1Mask) }) });
      await t.call('get missing', 'GET', `${events}/nope`);
    },
  },
  {
    name: 'events.k8s.io/v1 notes: 1,024 bytes of UTF-8 taken, 1,025 refused; core/v1 messages unlimited',
    script: async (t) => {
      const regarding = { apiVersion: 'v1', kind: 'ConfigMap', namespace: t.ns, name: 'x' };
      const v1 = (name: string, note: string) => ({
        metadata: { name },
        eventTime: '2026-01-01T00:00:00.000000Z',
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        action: 'Note',
        reason: 'Noted',
        type: 'Normal',
        note,
        regarding,
      });
      // a created Event as the length of its note; an error whole
      const mask = { mask: (b: any) => (b?.kind === 'Status' ? b : { noteBytes: Buffer.byteLength(b.note ?? b.message ?? '') }) };
      const notes: [string, string][] = [
        ['ascii', 'a'.repeat(1024)],
        ['e-acute', 'é'.repeat(512)],
        ['cjk', `${'漢'.repeat(341)}a`],
        ['emoji', '😀'.repeat(256)],
        ['lone-surrogate', `${'\ud800'.repeat(341)}a`], // each decoded to U+FFFD, 3 bytes
      ];
      for (const [what, note] of notes) {
        await t.call(
          `${what}, 1,024 bytes`,
          'POST',
          `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`,
          v1(`${what}.a`, note),
          undefined,
          mask,
        );
        await t.call(
          `${what}, 1,025 bytes`,
          'POST',
          `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`,
          v1(`${what}.b`, `${note}a`),
          undefined,
          mask,
        );
      }
      const core = { metadata: { name: 'core.a' }, involvedObject: regarding, reason: 'Noted', type: 'Normal', message: 'é'.repeat(1500) };
      await t.call('core/v1, 3,000 bytes', 'POST', t.path('events'), core, undefined, mask);
    },
  },
];
