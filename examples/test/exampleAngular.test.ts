import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './pack.ts';

const exec = promisify(execFile);
const script = join(ROOT, 'examples/scripts/exampleAngular.ts');

describe('npm run example:angular (scripts/exampleAngular.ts)', () => {
  it('should refuse a bad option with the usage and exit code 2, before building anything', async () => {
    const failed = await exec(process.execPath, [script, '--pods', 'many']).catch((e: unknown) => e as { code: number; stderr: string });
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('--pods must be a non-negative number, got "many"') });
    expect((failed as { stderr: string }).stderr).toContain('usage: npm run example:angular');
  });

  it('should print its usage with --help', async () => {
    const { stdout } = await exec(process.execPath, [script, '--help']);
    expect(stdout).toContain('--rate      churn');
  });
});
