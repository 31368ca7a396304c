/**
 * `npm run test:repeat -- [--runs N] [--load N] [jest arguments]`: runs the test suite (jest, with
 * the arguments given) N times in a row, optionally beside N busy processes that each keep a core
 * spinning, and reports every test that failed in any run, with how often. A test that fails one
 * run in several is flaky: find its cause; this script only finds it.
 *
 *   npm run test:repeat -- --runs 5 --load 1            # five whole runs beside one busy core
 *   npm run test:repeat -- --runs 3 packages/cli        # three runs of one project's tests
 *
 * Each run's jest JSON report is kept in the folder it prints. Exit code 1 when any run failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './build.ts';

/** What jest's `--json` report holds that this script reads. */
interface JestReport {
  numFailedTests: number;
  numTotalTests: number;
  testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
}

/** One run's outcome. */
export interface RunOutcome {
  run: number;
  seconds: number;
  load: number;
  total: number;
  failed: string[];
}

/** Tests that failed in any run, with the runs they failed in, most often first. */
export function flakyTable(outcomes: readonly RunOutcome[]): { test: string; failedRuns: number[] }[] {
  const byTest = new Map<string, number[]>();
  for (const o of outcomes) for (const t of o.failed) byTest.set(t, [...(byTest.get(t) ?? []), o.run]);
  return [...byTest].map(([test, failedRuns]) => ({ test, failedRuns })).sort((a, b) => b.failedRuns.length - a.failedRuns.length);
}

/** The failed tests of a jest JSON report, as `file › full name`. */
export function failedTests(report: JestReport): string[] {
  return report.testResults.flatMap((file) =>
    file.assertionResults.filter((a) => a.status === 'failed').map((a) => `${file.name.replace(ROOT, '')} › ${a.fullName}`),
  );
}

/** Starts `count` processes that each keep one core busy until killed. */
function burners(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

/** Runs jest once with `args`, its JSON report written to `file`. */
function jest(args: string[], file: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/jest'), ['--json', `--outputFile=${file}`, ...args], { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', () => resolve());
  });
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: { runs: { type: 'string', default: '3' }, load: { type: 'string', default: '0' } },
  });
  const runs = Number(values.runs);
  const load = Number(values.load);
  if (!Number.isInteger(runs) || runs < 1 || runs > 100)
    throw new Error(`--runs must be an integer in [1, 100], not ${String(values.runs)}`);
  if (!Number.isInteger(load) || load < 0 || load > cpus().length) throw new Error(`--load must be an integer in [0, ${cpus().length}]`);
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-repeat-'));
  const outcomes: RunOutcome[] = [];
  for (let run = 1; run <= runs; run++) {
    const busy = burners(load);
    const started = performance.now();
    const file = join(dir, `run-${run}.json`);
    try {
      await jest(positionals as string[], file);
    } finally {
      for (const b of busy) b.kill('SIGKILL');
    }
    const report = JSON.parse(readFileSync(file, 'utf8')) as JestReport;
    const outcome = {
      run,
      seconds: Math.round((performance.now() - started) / 1000),
      load: loadavg()[0],
      total: report.numTotalTests,
      failed: failedTests(report),
    };
    outcomes.push(outcome);
    console.log(
      `run ${run}/${runs}: ${outcome.total - outcome.failed.length}/${outcome.total} passed in ${outcome.seconds} s (load ${outcome.load.toFixed(1)}, ${load} busy cores)`,
    );
  }
  const table = flakyTable(outcomes);
  console.log(`\nreports: ${dir}`);
  if (table.length === 0) console.log(`every test passed in all ${runs} runs`);
  for (const { test, failedRuns } of table) console.log(`failed in ${failedRuns.length}/${runs} (runs ${failedRuns.join(', ')}): ${test}`);
  return table.length === 0 ? 0 : 1;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
