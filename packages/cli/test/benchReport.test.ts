import { describe, expect, it } from '@jest/globals';
import { renderChart, escapeXml } from '../bench/chart.ts';
import { renderSection, spliceSection, SECTION_END, SECTION_START, type RunMeta } from '../bench/docs.ts';
import {
  buildMetric,
  checkGoal,
  formatFigure,
  formatRatio,
  formatVerdict,
  goalsMet,
  renderReferences,
  renderTable,
  withReference,
  type Metric,
} from '../bench/report.ts';
import { errorMessage, median, rotation, runRotating } from '../bench/rounds.ts';

// The pure parts of `npm run bench`: statistics, the JSON shape, the table, the chart and the docs
// section. No timings are asserted here; the benchmark itself measures.

const ok = (...samples: number[]) => ({ median: median(samples), samples });

const metrics = (): Record<string, Metric> => ({
  initialSync10k: buildMetric('initialSync10k', 'ms', 'lower', {
    rxinformer: ok(900, 1000, 950),
    clientNode: ok(2000, 2100, 2200),
    limit: ok(500, 520, 510),
  }),
  watchThroughput10k: withReference(
    buildMetric('watchThroughput10k', 'events/s', 'higher', {
      rxinformer: ok(9000),
      clientNode: ok(6000),
      limit: ok(10_000),
    }),
    'bareCache',
    'parse + Map',
    ok(10_000),
  ),
  initialSync100k: buildMetric('initialSync100k', 'ms', 'lower', {
    rxinformer: ok(15_000),
    clientNode: { error: 'RangeError: Invalid string length' },
    limit: ok(9000),
  }),
  applyCost100kVs1k: buildMetric('applyCost100kVs1k', 'ratio', 'lower', { rxinformer: ok(1.8) }),
});

describe('median', () => {
  it('should take the middle value, the upper middle of an even count, and NaN of nothing', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([])).toBeNaN();
  });
});

describe('rotation', () => {
  it('should start each round with the next contender and vary who runs before whom', () => {
    expect([0, 1, 2, 3].map((r) => rotation(['a', 'b', 'c'], r).join(''))).toEqual(['abc', 'bca', 'cab', 'abc']);
    // Six contenders (the watch metric's): over six rounds each runs once at each position and
    // right after each other one exactly once (a rotation kept every neighbour).
    const rows = [0, 1, 2, 3, 4, 5].map((r) => rotation(['a', 'b', 'c', 'd', 'e', 'f'], r));
    for (const row of rows) expect([...row].sort().join('')).toBe('abcdef');
    for (let k = 0; k < 6; k++) expect(new Set(rows.map((row) => row[k])).size).toBe(6);
    const pairs = rows.flatMap((row) => row.slice(1).map((x, k) => `${row[k]}${x}`));
    expect(new Set(pairs).size).toBe(30);
  });
});

describe('runRotating', () => {
  it('should warm up, run rounds in rotating order, and record a failure without running it again', async () => {
    const calls: string[] = [];
    let n = 0;
    const out = await runRotating(
      {
        a: async () => {
          calls.push('a');
          return ++n;
        },
        b: async () => {
          calls.push('b');
          throw new Error('too big', { cause: new RangeError('Invalid string length') });
        },
        c: async () => {
          calls.push('c');
          return 7;
        },
      },
      { rounds: 3, warmup: 1 },
    );
    expect(calls).toEqual(['a', 'b', 'c', 'a', 'c', 'c', 'a', 'c', 'a']);
    expect(out.a).toEqual({ median: 3, samples: [2, 3, 4] });
    expect(out.b).toEqual({ error: 'Error: too big: Invalid string length' });
    expect(out.c).toEqual({ median: 7, samples: [7, 7, 7] });
  });
});

describe('errorMessage', () => {
  it('should give one line of anything thrown', () => {
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(new TypeError('a\n  b'))).toBe('TypeError: a b');
  });
});

describe('checkGoal', () => {
  it('should check at-most and at-least bounds on the ratio to the peer or alone', () => {
    const figures = { rxinformer: 90, clientNode: 100, limit: 200 };
    expect(checkGoal({ of: 'clientNode', atMost: 0.5 }, figures)).toEqual({ atMost: 0.5, ratio: 0.9, met: false });
    expect(checkGoal({ of: 'limit', atLeast: 0.4 }, figures)).toEqual({ atLeast: 0.4, ratio: 0.45, met: true });
    expect(checkGoal({ of: null, atMost: 100 }, figures)).toEqual({ atMost: 100, ratio: 90, met: true });
  });

  it('should leave a goal unmeasured when a figure is missing or failed', () => {
    expect(checkGoal({ of: 'clientNode', atMost: 1 }, { rxinformer: 1, clientNode: { error: 'x' }, limit: null })).toEqual({
      atMost: 1,
      ratio: null,
      met: null,
    });
  });
});

describe('buildMetric', () => {
  it('should give the JSON shape of a metric: unit, better, three figures, goals and samples', () => {
    const m = metrics();
    expect(JSON.parse(JSON.stringify(m.initialSync10k))).toEqual({
      unit: 'ms',
      better: 'lower',
      rxinformer: 950,
      clientNode: 2100,
      limit: 510,
      goal: {
        'rxinformer/clientNode': { atMost: 0.5, ratio: 950 / 2100, met: true },
        'rxinformer/limit': { atMost: 1.5, ratio: 950 / 510, met: false },
      },
      samples: { rxinformer: [900, 1000, 950], clientNode: [2000, 2100, 2200], limit: [500, 520, 510] },
    });
    expect(m.initialSync100k.clientNode).toEqual({ error: 'RangeError: Invalid string length' });
    expect(m.initialSync100k.goal).toBeUndefined();
    expect(m.applyCost100kVs1k).toMatchObject({
      clientNode: null,
      limit: null,
      goal: { rxinformer: { atMost: 1.5, ratio: 1.8, met: false } },
    });
  });

  it('should take the goals of another name when told', () => {
    const m = buildMetric('initialSync1k', 'ms', 'lower', { rxinformer: ok(1), clientNode: ok(4), limit: ok(1) }, 'initialSync10k');
    expect(Object.keys(m.goal!)).toEqual(['rxinformer/clientNode', 'rxinformer/limit']);
  });
});

describe('goalsMet', () => {
  it('should count the goals that hold', () => {
    expect(goalsMet(metrics())).toEqual({ met: 3, total: 5 });
  });
});

describe('formatFigure', () => {
  it('should show the median with the range, a failure, or a dash', () => {
    expect(formatFigure(950, 'ms', [900, 1000, 950])).toBe('950 (900–1,000)');
    expect(formatFigure(42.25, 'ms')).toBe('42.3');
    expect(formatFigure(1.8, 'ratio', [1.8])).toBe('1.80');
    expect(formatFigure({ error: 'boom' }, 'ms')).toBe('failed: boom');
    expect(formatFigure(null, 'ms')).toBe('–');
  });
});

describe('renderTable', () => {
  it('should print one row per goal, the figures on the first, and a row for a metric without goals', () => {
    const lines = renderTable(metrics()).split('\n');
    expect(lines[0]).toBe('| metric | unit | rxinformer | client-node | limit | goal | ratio |');
    expect(lines[2]).toBe(
      '| initialSync10k | ms (lower is better) | 950 (900–1,000) | 2,100 (2,000–2,200) | 510 (500–520) | ≤ 0.5× client-node | 0.45 met |',
    );
    expect(lines[3]).toBe('|  |  |  |  |  | ≤ 1.5× limit | 1.86 **NOT met** |');
    expect(lines[5]).toContain('≥ 0.85× bare cache | 0.90 met');
    expect(lines[6]).toBe('| initialSync100k | ms (lower is better) | 15,000 | failed: RangeError: Invalid string length | 9,000 |  |  |');
    expect(lines[7]).toContain('| – | – | ≤ 1.5 | 1.80 **NOT met** |');
  });
});

describe('formatRatio', () => {
  it('should print 2 decimals, or 3 where 2 would round onto the bound', () => {
    expect(formatRatio(0.4567, 0.5)).toBe('0.46');
    expect(formatRatio(0.9998, 1)).toBe('0.999'); // just under ≥ 1: not "1.00 NOT met"
    expect(formatRatio(1.5004, 1.5)).toBe('1.501'); // just over ≤ 1.5
    expect(formatRatio(1, 1)).toBe('1.00');
    expect(formatRatio(0.9998)).toBe('1.00');
    expect(formatVerdict(checkGoal({ of: 'clientNode', atLeast: 1 }, { rxinformer: 17_249, clientNode: 17_253, limit: null }))).toBe(
      '0.999 **NOT met**',
    );
  });
});

describe('withReference and renderReferences', () => {
  it('should carry a reference, check the goals set against it, and print its ratios to the limit and rxinformer', () => {
    const base = buildMetric('watchThroughput10k', 'events/s', 'higher', {
      rxinformer: ok(18_000),
      clientNode: ok(19_000),
      limit: ok(36_000),
    });
    const m = withReference(base, 'bareCache', 'parse + Map', ok(22_000, 20_000, 24_000));
    expect(m.references).toEqual({ bareCache: { what: 'parse + Map', value: 22_000, samples: [22_000, 20_000, 24_000] } });
    expect(base.goal!['rxinformer/bareCache']).toEqual({ atLeast: 0.85, ratio: null, met: null }); // not measured yet
    expect(m.goal).toEqual({ ...base.goal, 'rxinformer/bareCache': { atLeast: 0.85, ratio: 18_000 / 22_000, met: false } });
    expect(goalsMet({ m })).toEqual({ met: 1, total: 2 });
    expect(renderReferences({ watchThroughput10k: m })).toEqual([
      '- watchThroughput10k, bareCache (parse + Map): 22,000 (20,000–24,000) events/s = 0.61× the limit; rxinformer 0.82× of it',
    ]);
  });

  it('should print only the ratio to rxinformer for a metric without a limit (the bare-Map applyCost)', () => {
    const m = withReference(buildMetric('applyCost100kVs1k', 'ratio', 'lower', { rxinformer: ok(1.5) }), 'bareMap', 'a Map', ok(3, 2.5, 4));
    expect(renderReferences({ applyCost100kVs1k: m })).toEqual([
      '- applyCost100kVs1k, bareMap (a Map): 3.00 (2.50–4.00) ratio; rxinformer 0.50× of it',
    ]);
  });

  it('should show a failed reference as such, with no ratios', () => {
    const m = withReference(buildMetric('watchThroughput10k', 'events/s', 'higher', { rxinformer: ok(1) }), 'bareCache', 'parse + Map', {
      error: 'timeout',
    });
    expect(renderReferences({ watchThroughput10k: m })).toEqual([
      '- watchThroughput10k, bareCache (parse + Map): failed: timeout events/s',
    ]);
    expect(renderReferences({ initialSync10k: metrics().initialSync10k })).toEqual([]);
  });
});

describe('renderChart', () => {
  it('should draw a bar per goal, coloured by the verdict, with the bound marked', () => {
    const svg = renderChart(metrics(), { subtitle: 'load <3>' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<rect x=/g)).toHaveLength(5);
    expect(svg.match(/fill="#2e9d4a"/g)).toHaveLength(3);
    expect(svg.match(/fill="#d23c3c"/g)).toHaveLength(2);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(5);
    expect(svg).toContain('load &lt;3&gt;');
    expect(svg).toContain('initialSync10k: ≤ 0.5× client-node');
  });

  it('should cut a ratio beyond the scale with an arrow', () => {
    const svg = renderChart(
      { applyCost100kVs1k: buildMetric('applyCost100kVs1k', 'ratio', 'lower', { rxinformer: ok(9) }) },
      { maxRatio: 3 },
    );
    expect(svg).toContain('▶');
    expect(svg).toContain('9.00 (not met)');
  });

  it('should escape markup in text', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
  });
});

describe('spliceSection', () => {
  const meta: RunMeta = {
    date: '2026-11-23T11:00:00.000Z',
    node: 'v22.23.3',
    cpus: '2× CPU',
    loadAverage: { start: [2, 1.5, 1], end: [3, 2, 1] },
    rounds: 3,
    roundsLarge: 1,
    watchUpdates: 20_000,
    durationS: 250,
  };
  const section = renderSection({ metrics: metrics() }, meta);

  it('should render the section with the date, the load, the table and the chart', () => {
    expect(section.startsWith(`${SECTION_START}\n## Side by side (\`npm run bench\`)`)).toBe(true);
    expect(section.endsWith(SECTION_END)).toBe(true);
    expect(section).toContain('2026-11-23');
    expect(section).toContain('load average 2.00 / 1.50 / 1.00');
    expect(section).toContain('**3 of 5 goals met.**');
    expect(section).toContain('the 100k sync: 1 round, no warm-up');
    expect(section).toContain('then 20,000 updates in its history');
    expect(section).toContain('![measured ratio against each goal](benchmarks.svg)');
    expect(renderSection({ metrics: { initialSync10k: metrics().initialSync10k } }, meta)).not.toContain('References measured');
  });

  it('should list the references under the table when there are any', () => {
    const m = metrics();
    m.watchThroughput10k = withReference(m.watchThroughput10k, 'bareCache', 'parse + Map', ok(9500));
    const withRefs = renderSection({ metrics: m }, meta);
    expect(withRefs).toContain(
      'References measured in the same run:\n- watchThroughput10k, bareCache (parse + Map): 9,500 events/s = 0.95× the limit; rxinformer 0.95× of it',
    );
  });

  it('should insert the section before the first section the first time, and replace it later', () => {
    const doc = '# Benchmarks\n\nIntro.\n\n## Core\n\nold text\n';
    const once = spliceSection(doc, section);
    expect(once.indexOf(SECTION_START)).toBeGreaterThan(once.indexOf('Intro.'));
    expect(once.indexOf(SECTION_END)).toBeLessThan(once.indexOf('## Core'));
    const twice = spliceSection(once, 'NEW');
    expect(twice).toBe('# Benchmarks\n\nIntro.\n\nNEW\n\n## Core\n\nold text\n');
    expect(spliceSection('# Only a title', 'S')).toBe('# Only a title\n\nS\n');
  });
});
