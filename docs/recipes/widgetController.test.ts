/**
 * The node:test example of envtest's README, widgetController.node-test.ts, run as its users run
 * it: `node --test`, in a process of its own, against the real kube-apiserver it starts with the
 * CRDs of crds/; and shown in the README word for word.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const example = `${here}widgetController.node-test.ts`;

describe('the widget controller tested under node --test', () => {
  it("should be envtest's README example word for word", () => {
    const readme = readFileSync(`${here}../../packages/envtest/README.md`, 'utf8');
    const at = readme.indexOf('<!-- docs/recipes/widgetController.node-test.ts -->');
    expect(at).toBeGreaterThan(0);
    expect(/```ts\n([\s\S]*?)```/.exec(readme.slice(at))?.[1]).toBe(readFileSync(example, 'utf8'));
  });

  it('should pass: the widgets become Ready, stay so, and turn False at size 0', async () => {
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const args = ['--conditions=@rxinformer/source', '--test', '--test-reporter=tap', example];
      const child = execFile(process.execPath, args, { cwd: here, timeout: 170_000 }, (_, stdout, stderr) =>
        resolve({ code: child.exitCode, out: `${stdout}\n${stderr}` }),
      );
    });
    if (run.code !== 0) throw new Error(`node --test exited with ${run.code}:\n${run.out}`);
    expect(run.out.match(/^# (tests|pass|fail) \d+$/gm)).toEqual(['# tests 2', '# pass 2', '# fail 0']);
    expect(run.out).toMatch(/^ok 1 - a widget with a size becomes Ready, and is not written again$/m);
    expect(run.out).toMatch(/^ok 2 - a widget resized to 0 turns Ready False at its new generation$/m);
  }, 180_000);
});
