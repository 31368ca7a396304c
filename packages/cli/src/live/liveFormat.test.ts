import { describe, expect, it } from '@jest/globals';
import { formatAge, formatDuration, formatTable, sanitize, statusOf, truncate } from './liveFormat.ts';

describe('truncate', () => {
  it('should keep text that fits and cut longer text with an ellipsis to exactly the width', () => {
    expect(truncate('web-1', 5)).toBe('web-1');
    expect(truncate('web-000123', 6)).toBe('web-0…');
    expect(truncate('web-000123', 6)).toHaveLength(6);
    expect(truncate('abc', 1)).toBe('…');
    expect(truncate('abc', 0)).toBe('');
  });

  it('should replace control characters so server text can never carry escape codes', () => {
    expect(sanitize('a\u001b[2Jb\nc')).toBe('a [2Jb c');
    expect(truncate('line1\nline2', 20)).toBe('line1 line2');
  });
});

describe('formatAge', () => {
  const now = Date.parse('2025-01-01T01:00:00Z');
  it('should print kubectl compact ages', () => {
    expect(formatAge('2025-01-01T00:59:15Z', now)).toBe('45s');
    expect(formatAge('2025-01-01T00:56:58Z', now)).toBe('3m2s');
    expect(formatAge('2024-12-31T20:00:00Z', now)).toBe('5h');
  });

  it('should say <unknown> without a valid timestamp', () => {
    expect(formatAge(undefined, now)).toBe('<unknown>');
    expect(formatAge('not a date', now)).toBe('<unknown>');
  });
});

describe('formatDuration', () => {
  it('should print milliseconds, tenths of seconds, then compact minutes', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(2400)).toBe('2.4s');
    expect(formatDuration(182_000)).toBe('3m2s');
  });
});

describe('statusOf', () => {
  it('should show a pod phase, its reason, or Terminating when it is being deleted', () => {
    expect(statusOf({ kind: 'Pod', status: { phase: 'Running' } } as never)).toBe('Running');
    expect(statusOf({ kind: 'Pod', status: { phase: 'Failed', reason: 'Evicted' } } as never)).toBe('Evicted');
    expect(statusOf({ kind: 'Pod', metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Running' } } as never)).toBe(
      'Terminating',
    );
    expect(statusOf({ kind: 'Pod' })).toBe('Pending');
  });

  it('should show node readiness, workload replicas, job state, else status.phase or -', () => {
    expect(statusOf({ kind: 'Node', status: { conditions: [{ type: 'Ready', status: 'True' }] } } as never)).toBe('Ready');
    expect(statusOf({ kind: 'Node' })).toBe('NotReady');
    expect(statusOf({ kind: 'Deployment', spec: { replicas: 3 }, status: { readyReplicas: 2 } } as never)).toBe('2/3 ready');
    expect(statusOf({ kind: 'Job', status: { succeeded: 1 } } as never)).toBe('Complete');
    expect(statusOf({ kind: 'Namespace', status: { phase: 'Active' } } as never)).toBe('Active');
    expect(statusOf({ kind: 'ConfigMap' })).toBe('-');
  });
});

describe('formatTable', () => {
  const columns = [{ title: 'NAMESPACE', min: 4 }, { title: 'NAME', min: 6 }, { title: 'STATUS' }];
  const rows = [
    ['default', 'web-000001', 'Running'],
    ['team-a', 'a-much-longer-pod-name', 'Pending'],
  ];

  it('should align columns two spaces apart as wide as their widest cell', () => {
    expect(formatTable(columns, rows, 200)).toEqual([
      'NAMESPACE  NAME                    STATUS',
      'default    web-000001              Running',
      'team-a     a-much-longer-pod-name  Pending',
    ]);
  });

  it('should shrink shrinkable columns right to left and never exceed the width', () => {
    const lines = formatTable(columns, rows, 30);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines[2]).toBe('team-a     a-much-lo…  Pending');
    expect(formatTable(columns, rows, 10).every((l) => l.length <= 10)).toBe(true);
  });

  it('should cap a column at its max', () => {
    expect(formatTable([{ title: 'N', max: 5 }, { title: 'S' }], [['abcdefgh', 'x']], 80)).toEqual(['N      S', 'abcd…  x']);
  });
});
