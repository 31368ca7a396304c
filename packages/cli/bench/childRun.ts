/**
 * Runs a benchmark script in a fresh Node process (so a heap figure sees only what that script
 * allocated) and reads the one JSON line it prints. The child inherits stderr for its progress and
 * is killed when it outlives its timeout or this process exits.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Options of `runChild`. */
export interface ChildRunOptions {
  /** Extra environment variables. Default: none. */
  env?: Record<string, string>;
  /** Node flags. Default `['--expose-gc']`. */
  nodeFlags?: string[];
  /** Kill the child after this many ms. Default 300,000. */
  timeoutMs?: number;
}

/**
 * Runs `script` (a file beside this one) with `args` and resolves with the JSON of the last line of
 * its stdout; rejects with its exit code and last stdout line when it fails.
 *
 * @example
 * const { ratio } = await runChild<{ ratio: number }>('applyCost.ts', ['--child']);
 */
export function runChild<T>(script: string, args: string[], options: ChildRunOptions = {}): Promise<T> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...(options.nodeFlags ?? ['--expose-gc']), path, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => { out += chunk; });
  return new Promise<T>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', killOnExit);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) {
        reject(new Error(`${script} ${args.join(' ')} failed (${signal ?? `exit code ${code}`})${last ? `: ${last}` : ''}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON: ${last.slice(0, 200)}`));
      }
    });
  });
}
