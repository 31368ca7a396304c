/**
 * Fidelity cases of Table output (`as=Table`): kubectl's columns and cells for pods, nodes,
 * deployments, events of both groups, configmaps and namespaces; what `includeObject` puts in a
 * row; a Table watch (the columns with the first event only, bookmarks as Tables of one row).
 */
import { createListViewObjects, deleteListViewObjects } from '@rxinformer/testing/servers';
import { seed } from './listCases.ts';
import { ACCEPT, isInitialEventsEnd, type FidelityCase } from './transcript.ts';

const table = { accept: ACCEPT.table };

export const tableCases: FidelityCase[] = [
  {
    name: 'Tables of pods, nodes, deployments, events and namespaces: the columns and cells kubectl shows',
    script: async (t) => {
      const eventsNs = `${t.ns}-ev`;
      await t.server.api.create('/api/v1/namespaces', { metadata: { name: eventsNs } });
      const made = await createListViewObjects(t.server.api, t.ns, eventsNs);
      try {
        const none = '?includeObject=None';
        await t.call('pods', 'GET', `${t.path('pods')}${none}`, undefined, table);
        await t.call('one pod', 'GET', `${t.path('pods', 'web')}${none}`, undefined, table);
        await t.call('nodes', 'GET', `/api/v1/nodes${none}&labelSelector=${encodeURIComponent(made.nodeSelector)}`, undefined, table);
        await t.call('deployments', 'GET', `/apis/apps/v1/namespaces/${t.ns}/deployments${none}`, undefined, table);
        await t.call('core events', 'GET', `${t.path('events')}${none}`, undefined, table);
        await t.call('events.k8s.io events', 'GET', `/apis/events.k8s.io/v1/namespaces/${eventsNs}/events${none}`, undefined, table);
        await t.call('namespaces', 'GET', `/api/v1/namespaces${none}&fieldSelector=metadata.name%3D${t.ns}`, undefined, table);
      } finally {
        await deleteListViewObjects(t.server.api, made);
      }
    },
  },
  {
    name: 'Table rows carry their object as includeObject asks: metadata by default, all of it, or none',
    script: async (t) => {
      await seed(t, ['r1', 'r2']);
      const cms = t.path('configmaps');
      for (const inc of ['', 'Metadata', 'Object', 'None'])
        await t.call(`includeObject=${inc}`, 'GET', `${cms}?includeObject=${inc}`, undefined, table);
      await t.call('paged', 'GET', `${cms}?limit=1&includeObject=None`, undefined, table);
      await t.call('bogus', 'GET', `${cms}?includeObject=Bogus`, undefined, table);
      await t.call('bogus, not a Table', 'GET', `${cms}?includeObject=Bogus&labelSelector=none`);
      await t.call('bogus watch', 'GET', `${cms}?watch=true&includeObject=Bogus`, undefined, table);
    },
  },
  {
    name: 'watch as Table: columns with the first event only, each event a Table of one row, the end bookmark a Table',
    script: async (t) => {
      await seed(t, ['w1', 'w2']);
      const cms = t.path('configmaps');
      const list = `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
      const none = await t.watch(`${list}&includeObject=None`, table);
      const whole = await t.watch(`${list}&includeObject=Object`, table);
      for (const w of [none, whole]) await w.until((e) => e.some(isInitialEventsEnd));
      await t.server.api.patch(t.path('configmaps', 'w1'), { data: { x: 'y' } });
      await t.server.api.delete(t.path('configmaps', 'w2'));
      await t.server.api.create(cms, { metadata: { name: 'end' }, data: {} });
      const isEnd = (e: { object?: { rows?: { object?: { metadata?: { name?: string } } | null; cells?: unknown[] }[] } }[]) =>
        e.some((x) => x.object?.rows?.[0]?.cells?.[0] === 'end');
      await Promise.all([none.until(isEnd), whole.until(isEnd)]);
      t.recordWatch('includeObject=None', none);
      t.recordWatch('includeObject=Object', whole);
      const empty = await t.watch(
        `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=none`,
        table,
      );
      await empty.until((e) => e.some(isInitialEventsEnd));
      t.recordWatch('only the end bookmark', empty);
    },
  },
  {
    name: 'Tables of a CustomResourceDefinition (the default columns) and of its custom resources (Name and a date Age)',
    script: async (t) => {
      const group = `${t.ns}.example.com`;
      const crd = `widgets.${group}`;
      await t.server.api.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      });
      try {
        const widgets = `/apis/${group}/v1/namespaces/${t.ns}/widgets`;
        // kube-apiserver serves a new CRD's resource a moment after it is created
        for (let i = 0; i < 100 && (await t.server.api.call('GET', widgets)).status !== 200; i++)
          await new Promise((r) => setTimeout(r, 100));
        await t.server.api.create(widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } });
        await t.call(
          'the CRD',
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3D${crd}&includeObject=None`,
          undefined,
          table,
        );
        await t.call('its widgets', 'GET', `${widgets}?includeObject=None`, undefined, table);
      } finally {
        await t.server.api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`, { ignoreMissing: true });
      }
    },
  },
];
