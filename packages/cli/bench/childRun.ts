/**
 * Runs a benchmark script in a fresh Node process (so a heap figure sees only what that script
 * allocated) and reads the one JSON line it prints. The child inherits stderr for its progress and
 * is killed when it outlives its timeout or this process exits.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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
  const child = spawnScript(script, args, options, 'ignore');
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    out += chunk;
  });
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

function spawnScript(script: string, args: string[], options: ChildRunOptions, stdin: 'ignore' | 'pipe') {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  return spawn(process.execPath, [...(options.nodeFlags ?? ['--expose-gc']), path, ...args], {
    stdio: [stdin, 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
}

/** A script running in its own process that answers each JSON request line with one JSON line. */
export interface ChildServer {
  /** Sends `request` and resolves with the answer; rejects when the child dies or times out first. */
  ask<T>(request: unknown): Promise<T>;
  /** Ends the child (closes its stdin, kills it if it lingers). */
  close(): void;
}

/**
 * Starts `script` (a file beside this one) as a `ChildServer`, resolving once it printed its first
 * line (its "ready"). Each `ask` must wait for the previous one. `options.timeoutMs` bounds the
 * start and each answer.
 *
 * @example
 * const small = await startChildServer('applyCost.ts', ['--serve', '1000']);
 * const cost = await small.ask<ServedLoop>({ round: 0 });
 * small.close();
 */
export async function startChildServer(script: string, args: string[], options: ChildRunOptions = {}): Promise<ChildServer> {
  const child = spawnScript(script, args, options, 'pipe');
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `${script} ${args.join(' ')} exited (${signal ?? `exit code ${code}`})`;
    process.off('exit', killOnExit);
  });
  // A child that cannot start, or a write to one that died (EPIPE), surfaces as the next answer's
  // failure ("closed its output" / "exited"), not as an unhandled 'error' event.
  child.once('error', (e) => {
    exited = `${script} ${args.join(' ')} failed: ${e.message}`;
  });
  child.stdin!.on('error', () => undefined);
  const next = async (): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${script} ${args.join(' ')} did not answer within ${options.timeoutMs ?? 300_000} ms`));
      }, options.timeoutMs ?? 300_000);
    });
    try {
      const line = await Promise.race([lines.next(), timeout]);
      if (line.done) throw new Error(exited ?? `${script} ${args.join(' ')} closed its output`);
      return line.value;
    } finally {
      clearTimeout(timer);
    }
  };
  const server: ChildServer = {
    async ask<T>(request: unknown): Promise<T> {
      child.stdin!.write(`${JSON.stringify(request)}\n`);
      const line = await next();
      try {
        return JSON.parse(line) as T;
      } catch {
        throw new Error(`${script} answered no JSON: ${line.slice(0, 200)}`);
      }
    },
    close() {
      child.stdin!.end();
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    },
  };
  try {
    await next();
  } catch (e) {
    server.close();
    throw e;
  }
  return server;
}
