import { describe, expect, it } from '@jest/globals';
import { humanAge, toTable } from './table.ts';

describe('toTable', () => {
  it('should render kubectl pod columns', () => {
    const now = new Date('2026-01-01T00:10:00Z');
    const pod = {
      metadata: { name: 'web', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { containers: [{}, {}], nodeName: 'n1' },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        containerStatuses: [
          { ready: true, restartCount: 2 },
          { ready: false, restartCount: 1 },
        ],
      },
    };
    const t = toTable('pods', [pod], { resourceVersion: '5' }, now) as {
      rows: { cells: unknown[]; object: { kind: string } }[];
      columnDefinitions: { name: string }[];
    };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node']);
    expect(t.rows[0].cells).toEqual(['web', '1/2', 'Running', 3, '10m', '10.0.0.1', 'n1']);
    expect(t.rows[0].object.kind).toBe('PartialObjectMetadata');
  });

  it('should say Terminating for a pod being deleted, and Name/Age for other kinds', () => {
    const now = new Date('2026-01-01T00:00:30Z');
    const t = toTable(
      'pods',
      [
        {
          metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z', creationTimestamp: '2026-01-01T00:00:00Z' },
          status: { phase: 'Running' },
        } as never,
      ],
      {},
      now,
    ) as { rows: { cells: unknown[] }[] };
    expect(t.rows[0].cells[2]).toBe('Terminating');
    const cm = toTable('configmaps', [{ metadata: { name: 'c', creationTimestamp: '2026-01-01T00:00:00Z' } }], {}, now) as {
      rows: { cells: unknown[] }[];
    };
    expect(cm.rows[0].cells).toEqual(['c', '30s']);
  });

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
