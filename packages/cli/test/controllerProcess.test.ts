/** A controller in a real Node process: a bad reconcile result must not kill the process (the controller package has no Node types, so it lives here). */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');
const core = join(root, 'packages/core/src/index.ts');
const controller = join(root, 'packages/controller/src/index.ts');

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

describe('a controller in a Node process', () => {
  it('should not exit on an async reconcile answering requeueAfterMs Infinity (an unhandled rejection before), and exit once stopped', async () => {
    // No unhandledRejection handler: Node's default turns one into exit code 1.
    const script = `
      import { createInformerFactory } from ${JSON.stringify(core)};
      import { controllerFor } from ${JSON.stringify(controller)};
      import { NEVER, of } from 'rxjs';
      const item = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: '1' } });
      const lw = { list: () => of({ items: [item('a'), item('b')], metadata: { resourceVersion: '1' } }), watch: () => NEVER };
      const factory = createInformerFactory(() => lw);
      const seen = [];
      const errors = [];
      const quiet = { error() {}, warn() {}, info() {} };
      const ctl = controllerFor(factory, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }, {
        name: 'process', logger: quiet,
      }).reconcile(async ({ name }) => {
        seen.push(name);
        return name === 'a' ? { requeueAfterMs: Math.min() } : undefined;
      });
      const run = ctl.start();
      run.errors$.subscribe((e) => errors.push(e.key + ': ' + e.error.name));
      while (!seen.includes('b')) await new Promise((r) => setTimeout(r, 5));
      await run.stop();
      factory.shutdown();
      console.log(JSON.stringify({ seen: seen.slice(0, 2).sort(), errors: errors.slice(0, 1), queue: run.queue.metrics().processing }));
    `;
    const { code, out } = await runScript(script);
    expect({ code, out: out.trim() }).toEqual({
      code: 0,
      out: JSON.stringify({ seen: ['a', 'b'], errors: ['ns/a: InvalidReconcileResultError'], queue: 0 }),
    });
  }, 30_000);
});
