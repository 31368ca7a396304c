/**
 * The CLI as a user runs it, for the tests: a child process on Node 22 (`packages/cli/src/main.ts`),
 * output piped (not a terminal), KUBECONFIG not inherited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The repository's Node 22, and the CLI's entry point. */
export const node = join(root, 'node_modules/.bin/node');
export const main = join(root, 'packages/cli/src/main.ts');
/** Every CLI process still running (`killAll` ends them). */
const children = new Set<ChildProcess>();

/** How a CLI process ended, and everything it wrote. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI; `waitFor(re)` resolves when stdout matches; `exit` resolves with everything it wrote. */
export function startCli(args: string[], env: Record<string, string> = {}) {
  const { KUBECONFIG: _ignored, ...inherited } = process.env;
  const child = spawn(node, [main, ...args], { cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const watchers: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const w of watchers.splice(0))
      if (w.re.test(stdout)) w.resolve();
      else watchers.push(w);
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exit = new Promise<Run>((resolve) =>
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  const waitFor = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(stdout)) return resolve();
      watchers.push({ re, resolve });
      void exit.then((r) => reject(new Error(`exited (${r.code}) before ${re}: ${r.stdout}\n${r.stderr}`)));
    });
  return { child, exit, waitFor };
}

/** Runs the CLI to its end. */
export const run = (args: string[], env?: Record<string, string>): Promise<Run> => startCli(args, env).exit;

/** Adds a process started otherwise to those `killAll` ends, until it closes. */
export function tracked(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Kills every CLI process still running (for `afterAll`). */
export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}
