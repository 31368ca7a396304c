/** runController in a real Node process: a bad reconcile result must not kill the process (core has no Node types, so it lives here). */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');
const core = join(root, 'packages/core/src/workqueue/index.ts');

/** Runs `script` as an ES module; resolves with its exit code and output, or 'still running' past the deadline. */
function runScript(script: string, deadlineMs = 15_000): Promise<{ code: number | null | 'still running'; out: string }> {
  const child = spawn(node, ['--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'still running', out });
    }, deadlineMs);
    child.on('exit', (code) => {
      clearTimeout(deadline);
      resolve({ code, out });
    });
  });
}

describe('runController in a Node process', () => {
  it('should not exit on an async reconcile answering requeueAfterMs Infinity (an unhandled rejection before), and exit once stopped', async () => {
    // No unhandledRejection handler: Node's default turns one into exit code 1.
    const script = `
      import { runController, WorkQueue } from ${JSON.stringify(core)};
      const queue = new WorkQueue();
      const seen = [];
      const errors = [];
      const ctl = runController({
        queue,
        synced: Promise.resolve(true),
        reconcile: async (key) => {
          seen.push(key);
          return key === 'a' ? { requeueAfterMs: Math.min() } : undefined;
        },
      });
      ctl.errors$.subscribe((e) => errors.push(e.key + ': ' + e.error.name));
      queue.add('a');
      queue.add('b');
      while (!seen.includes('b')) await new Promise((r) => setTimeout(r, 5));
      await ctl.stop();
      console.log(JSON.stringify({ seen: seen.slice(0, 2), errors: errors.slice(0, 1), queue: queue.metrics().processing }));
    `;
    const { code, out } = await runScript(script);
    expect({ code, out: out.trim() }).toEqual({
      code: 0,
      out: JSON.stringify({ seen: ['a', 'b'], errors: ['a: InvalidReconcileResultError'], queue: 0 }),
    });
  }, 30_000);
});
