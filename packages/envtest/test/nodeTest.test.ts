/**
 * eventually and consistently under node:test (`node --test`, a process of its own): the passing
 * test passes, the failing one reports consistently's error, and the process ends at once, though
 * their windows were ten minutes long (no timer left behind).
 */
import { expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

it('should pass and fail under node --test as it does under jest, and let the process end', async () => {
  const file = fileURLToPath(new URL('fixtures/eventually.node-test.ts', import.meta.url));
  const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = execFile(process.execPath, ['--test', '--test-reporter=tap', file], { timeout: 60_000 }, (_, stdout, stderr) =>
      resolve({ code: child.exitCode, out: `${stdout}\n${stderr}` }),
    );
  });
  expect(run.code).toBe(1);
  expect(run.out.match(/^# (tests|pass|fail) \d+$/gm)).toEqual(['# tests 2', '# pass 1', '# fail 1']);
  expect(run.out).toMatch(/^ok 1 - eventually passes once the value is set$/m);
  expect(run.out).toMatch(/^not ok 2 - consistently fails at the flip$/m);
  expect(run.out).toMatch(/consistently: the check failed at check \d+ of a 600000 ms window: Expected values to be strictly equal/);
}, 60_000);
