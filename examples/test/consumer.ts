/**
 * A consumer project as a user would have it: a template from `examples/` copied to a fresh
 * directory outside the repository (not a workspace), the packed tarballs installed with npm next
 * to third-party dependencies from the registry, and its commands run without the repository's
 * environment (its own Node 22 from the `node` devDependency, no repository npm settings).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanEnv, ROOT, type PackedPackage } from './pack.ts';

const exec = promisify(execFile);

/** A consumer project in a temporary directory. */
export interface Consumer {
  /** The project directory. */
  readonly dir: string;
  /** The environment its commands run in. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs a command in the project; rejects with its output when it fails. */
  run(command: string, args: string[], options?: { env?: NodeJS.ProcessEnv }): Promise<{ stdout: string; stderr: string }>;
  /** Starts a long-running command; its output is collected. */
  start(command: string, args: string[], options?: { env?: NodeJS.ProcessEnv }): Running;
  /** Stops what was started and removes the directory. */
  dispose(): Promise<void>;
}

/** A command started with `Consumer.start`. */
export interface Running {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `re` in the output; rejects when the process exits first. */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  /** SIGINT to its process group, then SIGKILL after 5 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Options of `createConsumer`. */
export interface ConsumerOptions {
  /**
   * A directory to install into and keep (created if missing; the template copied over what it
   * holds, so a second install is quick). Default: a fresh temporary directory, removed on dispose.
   */
  dir?: string;
}

/** Copies `examples/<template>` to a temporary directory (or `options.dir`) and installs `packages` there. */
export async function createConsumer(
  template: string,
  packages: readonly PackedPackage[],
  options: ConsumerOptions = {},
): Promise<Consumer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), `rxinformer-${template}-`));
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'examples', template), dir, { recursive: true, filter: (src) => !/node_modules|dist$/.test(src) });
  const env = cleanEnv([join(dir, 'node_modules/.bin')]);
  const started = new Set<Running>();
  const run: Consumer['run'] = async (command, args, options = {}) => {
    try {
      return await exec(command, args, { cwd: dir, env: options.env ?? env, maxBuffer: 64 * 1024 * 1024 });
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(' ')} failed in ${dir}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: e });
    }
  };
  const start: Consumer['start'] = (command, args, options = {}) => {
    const running = startProcess(command, args, dir, options.env ?? env);
    started.add(running);
    return running;
  };
  await run('npm', ['install', '--no-audit', '--no-fund', ...packages.map((p) => p.tarball)]);
  return {
    dir,
    env,
    run,
    start,
    dispose: async () => {
      await Promise.all([...started].map((r) => r.stop()));
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `command` in `cwd`, in a process group of its own; `Consumer.start` uses it. */
export function startProcess(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Running {
  // Its own process group, so that stop() reaches what it starts in turn (npx runs the command through
  // a shell): an orphan would keep our pipes, and the test run, alive.
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // the group is gone already
    }
  };
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (!m) return;
          listeners.delete(check);
          resolve(m);
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          if (listeners.delete(check)) reject(new Error(`${command} exited with ${code} before printing ${re}:\n${out}`));
        });
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        signal('SIGINT');
        const timer = setTimeout(() => signal('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      signal('SIGKILL'); // anything of the group still running
      return exited;
    },
  };
}

/** The simulator started as a user would, with `npx rxinformer-apiserver` from the consumer's install. */
export async function startSimulator(consumer: Consumer): Promise<{ url: string; kubeconfig: string; running: Running }> {
  const kubeconfig = join(consumer.dir, 'sim.kubeconfig');
  const running = consumer.start('npx', ['--no-install', 'rxinformer-apiserver', '--port', '0', '--kubeconfig', kubeconfig]);
  const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
  await running.waitFor(/kubeconfig written to/);
  return { url, kubeconfig, running };
}
