/**
 * The simulator's Tables, cell for cell as kube-apiserver 1.36.3 printed the same objects (probed
 * through envtest). The fidelity suite (test/fidelity, "Table") compares them live.
 */
import { describe, expect, it } from '@jest/globals';
import { ApiStatusError } from './status.ts';
import { bookmarkTable, humanAge, includeObjectOf, toTable } from './table.ts';

type Table = {
  kind: string;
  apiVersion: string;
  metadata: object;
  columnDefinitions: { name: string; type: string; priority: number }[] | null;
  rows: { cells: unknown[]; conditions?: object[]; object: { kind?: string; apiVersion?: string; metadata?: object } | null }[];
};
const now = new Date('2026-11-29T08:10:00Z');
const created = '2026-11-29T08:00:00Z';
const names = (t: Table) => t.columnDefinitions?.map((c) => c.name);

describe('toTable', () => {
  it("should print pods with kube-apiserver's columns, restarts as text, and a Completed condition on finished pods", () => {
    const pod = {
      metadata: { name: 'web', namespace: 'p', creationTimestamp: created },
      spec: { nodeName: 'n1', containers: [{}, {}] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.1' }],
        containerStatuses: [
          { ready: true, restartCount: 2, state: { running: {} } },
          { ready: false, restartCount: 1, state: { running: {} } },
        ],
      },
    };
    const done = { metadata: { name: 'done', creationTimestamp: created }, spec: { containers: [{}] }, status: { phase: 'Succeeded' } };
    const t = toTable({ group: '', resource: 'pods' }, [pod, done], { resourceVersion: '5' }, now) as Table;
    expect(names(t)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(t.columnDefinitions?.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'IP',
      'Node',
      'Nominated Node',
      'Readiness Gates',
    ]);
    expect(t.rows[0].cells).toEqual(['web', '1/2', 'Running', '3', '10m', '10.0.0.1', 'n1', '<none>', '<none>']);
    expect(t.rows[0]).not.toHaveProperty('conditions');
    expect(t.rows[1].conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    expect(t.rows[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata });
  });

  it('should print configmaps, namespaces, and events of both groups as kube-apiserver does', () => {
    const cm = { metadata: { name: 'c1', creationTimestamp: created }, data: { a: '1', b: '2' }, binaryData: { z: 'AA==' } };
    expect((toTable({ group: '', resource: 'configmaps' }, [cm], {}, now) as Table).rows[0].cells).toEqual(['c1', 3, '10m']);
    const ns = { metadata: { name: 'n', creationTimestamp: created }, status: { phase: 'Active' } };
    expect((toTable({ group: '', resource: 'namespaces' }, [ns], {}, now) as Table).rows[0].cells).toEqual(['n', 'Active', '10m']);
    const core = {
      metadata: { name: 'e1', namespace: 'p', creationTimestamp: created },
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'p' },
      reason: 'Started',
      message: ' Started container a \n',
      type: 'Normal',
      count: 3,
      firstTimestamp: '2026-11-29T07:58:00Z',
      lastTimestamp: '2026-11-29T08:05:00Z',
      source: { component: 'kubelet', host: 'n1' },
    };
    const seriesEvent = {
      metadata: { name: 'e2', namespace: 'p', creationTimestamp: created },
      involvedObject: { kind: 'Deployment', name: 'd2', fieldPath: 'spec.containers{c}' },
      reason: 'Scaled',
      message: 'hi',
      type: 'Warning',
      eventTime: '2026-11-29T07:58:00.000000Z',
      series: { count: 4, lastObservedTime: '2026-11-29T08:08:00.000000Z' },
      reportingComponent: 'ctrl',
      reportingInstance: 'inst-1',
    };
    const bare = {
      metadata: { name: 'e3', namespace: 'p', creationTimestamp: created },
      involvedObject: { kind: 'Pod', name: 'web' },
      reason: 'R',
      message: 'm',
    };
    const events = toTable({ group: '', resource: 'events' }, [core, seriesEvent, bare], {}, now) as Table;
    expect(names(events)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ]);
    expect(events.rows.map((r) => r.cells)).toEqual([
      ['5m', 'Normal', 'Started', 'pod/web', '', 'kubelet, n1', 'Started container a', '12m', 3, 'e1'],
      ['2m', 'Warning', 'Scaled', 'deployment/d2', 'spec.containers{c}', 'ctrl, inst-1', 'hi', '12m', 4, 'e2'],
      ['<unknown>', '', 'R', 'pod/web', '', '', 'm', '<unknown>', 1, 'e3'],
    ]);
    const v1 = {
      metadata: core.metadata,
      regarding: core.involvedObject,
      reason: core.reason,
      note: core.message,
      type: core.type,
      deprecatedCount: 3,
      deprecatedFirstTimestamp: core.firstTimestamp,
      deprecatedLastTimestamp: core.lastTimestamp,
      deprecatedSource: core.source,
    };
    expect((toTable({ group: 'events.k8s.io', resource: 'events' }, [v1], {}, now) as Table).rows[0].cells).toEqual(events.rows[0].cells);
  });

  it('should print custom resources with Name and a date Age, and other kinds with Name and Created At', () => {
    const w = { metadata: { name: 'w1', creationTimestamp: created }, spec: { size: 3 } };
    const cr = toTable({ group: 'example.com', resource: 'widgets', custom: true }, [w], {}, now) as Table;
    expect(cr.columnDefinitions?.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(cr.rows[0].cells).toEqual(['w1', '10m']);
    const crd = toTable({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }, [w], {}, now) as Table;
    expect(crd.columnDefinitions?.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(crd.rows[0].cells).toEqual(['w1', created]);
    expect((toTable('configmaps', [w], {}, now) as Table).rows[0].cells).toEqual(['w1', 0, '10m']);
  });

  it('should carry each row’s object as includeObject asks, and leave the columns out when told', () => {
    const cm = { metadata: { name: 'c', creationTimestamp: created }, data: {} };
    const r = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' };
    expect((toTable(r, [cm], {}, now, { includeObject: 'None' }) as Table).rows[0].object).toBeNull();
    expect((toTable(r, [cm], {}, now, { includeObject: 'Object' }) as Table).rows[0].object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      ...cm,
    });
    const beta = toTable(r, [cm], {}, now, { version: 'v1beta1', columns: false }) as Table;
    expect(beta).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1', columnDefinitions: null });
    expect(beta.rows[0].object?.apiVersion).toBe('meta.k8s.io/v1beta1');
  });
});

describe('bookmarkTable', () => {
  it('should print a bookmark as one row of an empty object, the end bookmark’s metadata on a PartialObjectMetadata even with includeObject=None', () => {
    const metadata = { resourceVersion: '942', annotations: { 'k8s.io/initial-events-end': 'true' } };
    const row = (resource: string, group = '', custom = false) =>
      (bookmarkTable({ group, resource, custom, kind: 'X' }, metadata, now, { version: 'v1', includeObject: 'None' }, false) as Table)
        .rows[0];
    expect(row('pods')).toEqual({
      cells: ['', '0/0', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata },
    });
    expect(row('nodes').cells).toEqual([
      '',
      'Unknown',
      '<none>',
      '<unknown>',
      '',
      '<none>',
      '<none>',
      '<unknown>',
      '<unknown>',
      '<unknown>',
    ]);
    expect(row('deployments', 'apps').cells).toEqual(['', '0/0', 0, 0, '<unknown>', '', '', '']);
    expect(row('events').cells).toEqual(['<unknown>', '', '', '', '', '', '', '<unknown>', 1, '']);
    expect(row('namespaces').cells).toEqual(['', '', '<unknown>']);
    expect(row('customresourcedefinitions', 'apiextensions.k8s.io').cells).toEqual(['', '0001-01-01T00:00:00Z']);
    expect(row('widgets', 'example.com', true).cells).toEqual(['', null]);
    const whole = bookmarkTable(
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
      metadata,
      now,
      { version: 'v1', includeObject: 'Object' },
      true,
    ) as Table;
    expect(whole.rows[0].object).toEqual({ kind: 'Deployment', apiVersion: 'apps/v1', metadata });
    expect(whole.metadata).toEqual({ resourceVersion: '942' });
    expect(names(whole)?.[0]).toBe('Name');
    const later = bookmarkTable(
      { group: '', resource: 'configmaps' },
      { resourceVersion: '950' },
      now,
      { version: 'v1', includeObject: 'None' },
      false,
    ) as Table;
    expect(later.rows[0]).toEqual({ cells: ['', 0, '<unknown>'], object: null });
    expect(later.metadata).toEqual({ resourceVersion: '950' });
  });
});

describe('includeObjectOf', () => {
  it("should take None, Metadata, Object or nothing, and answer anything else with the API server's 400", () => {
    expect([undefined, '', 'Metadata', 'None', 'Object'].map(includeObjectOf)).toEqual([
      'Metadata',
      'Metadata',
      'Metadata',
      'None',
      'Object',
    ]);
    expect(() => includeObjectOf('Bogus')).toThrow(ApiStatusError);
    try {
      includeObjectOf('Bogus');
    } catch (e) {
      expect((e as ApiStatusError).status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: `Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be 'Metadata', 'Object', 'None', or empty`,
      });
    }
  });
});

describe('humanAge', () => {
  it('should format ages like kubectl', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const at = (s: number) => humanAge(t0, new Date(t0.getTime() + s * 1000));
    expect([at(5), at(119), at(185), at(3600), at(3 * 3600 + 120), at(30 * 3600), at(3 * 86400 + 3600), at(20 * 86400)]).toEqual([
      '5s',
      '119s',
      '3m5s',
      '60m',
      '3h2m',
      '30h',
      '3d1h',
      '20d',
    ]);
  });
});
