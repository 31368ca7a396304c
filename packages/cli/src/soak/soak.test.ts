import { describe, expect, it } from '@jest/globals';
import { passed, runSeed, summarize } from './soak.ts';
import type { SoakRunResult } from './soakRun.ts';
import { soakJson, soakTable } from './soakReport.ts';

const run = (fields: Partial<SoakRunResult>): SoakRunResult => ({
  library: 'rxinformer',
  seed: 1,
  server: 'sim',
  converged: true,
  convergeMs: 100,
  uidViolations: 0,
  handlerEvents: 10,
  faultsApplied: 20,
  faults: {},
  churn: { created: 1, updated: 1, deleted: 1, recreated: 1, failed: 0, skipped: 0 },
  serverObjects: 5,
  stats: { relists: 2, errorsSeen: 3, errorKinds: {}, errorSamples: {}, restarts: 0, handlerErrors: 0 },
  ...fields,
});

describe('runSeed', () => {
  it('should give each run its own seed, the same for the same soak seed', () => {
    const seeds = Array.from({ length: 100 }, (_, i) => runSeed(7, i));
    expect(new Set(seeds).size).toBe(100);
    expect(runSeed(7, 3)).toBe(seeds[3]);
    expect(runSeed(8, 3)).not.toBe(seeds[3]);
  });
});

describe('summarize', () => {
  it('should count converged runs, sum the figures and list the failures', () => {
    const s = summarize([
      run({ convergeMs: 100 }),
      run({ converged: false, convergeMs: undefined, failure: 'store: 1 missing', seed: 5, uidViolations: 2 }),
      run({ convergeMs: 300 }),
    ]);
    expect(s).toMatchObject({
      runs: 3,
      converged: 2,
      uidViolations: 2,
      relists: 6,
      errorsSeen: 9,
      meanConvergeMs: 200,
      maxConvergeMs: 300,
      faultsApplied: 60,
    });
    expect(s.failures).toEqual([{ run: 1, seed: 5, reason: 'store: 1 missing' }]);
  });
});

describe('passed', () => {
  it('should pass only when every run converged without a UID violation', () => {
    expect(passed(summarize([run({}), run({})]))).toBe(true);
    expect(passed(summarize([run({}), run({ converged: false })]))).toBe(false);
    expect(passed(summarize([run({ uidViolations: 1 })]))).toBe(false);
    expect(passed(summarize([]))).toBe(false);
  });
});

describe('soakJson and soakTable', () => {
  const summary = {
    rxinformer: summarize([run({})]),
    clientNode: summarize([run({ library: 'clientNode', converged: false, convergeMs: undefined, failure: 'handler first: 2 stale' })]),
  };

  it('should print exactly the two libraries as JSON', () => {
    const parsed = JSON.parse(soakJson(summary));
    expect(Object.keys(parsed)).toEqual(['rxinformer', 'clientNode']);
    expect(parsed.clientNode).toMatchObject({ runs: 1, converged: 0 });
  });

  it('should print a row per library and the failures', () => {
    const table = soakTable(summary);
    expect(table).toContain('| rxinformer | 1 | 1 | 0 | 1 | 2 | 3 | 0 | 100 | 100 |');
    expect(table).toContain('| clientNode | 1 | 0 | 0 | 0 |');
    expect(table.split('\n')[1]).toBe('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    expect(table).toContain('clientNode run 1 (seed 1): handler first: 2 stale');
  });
});
