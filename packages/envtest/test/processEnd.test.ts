import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// Every way the program that started a test environment can end, each with its own real
// environment in its own process group, all started at once (a start is CPU-bound: in parallel
// they share the cores instead of waiting in turn), then each ended for real.
const FIXTURE = fileURLToPath(new URL('./fixtures/orphan.ts', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const NODE = [process.execPath, '--conditions=@rxinformer/source'];
const START = 300_000;

interface Program {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The environment's folder, from the program's output. */
  dir: string;
  /** etcd, kube-apiserver and their watchdogs: the processes whose command line names the folder. */
  pids: number[];
  /** Its stdout and stderr. */
  out: string;
}

/** Spawns `argv` as the leader of a process group of its own, stdin a pipe the test writes to. */
function launch(argv: string[]): Program {
  // stderr is kept, not shown: the crashes asked for print their stack there.
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const program: Program = { child, exit, dir: '', pids: [], out: '' };
  child.stdout!.on('data', (d: Buffer) => (program.out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (program.out += d.toString()));
  return program;
}

/** Waits until the program's output matches `pattern` (and fails if it exits first); returns the match. */
async function output(program: Program, pattern: RegExp): Promise<RegExpExecArray> {
  for (;;) {
    const match = pattern.exec(program.out);
    if (match) return match;
    if (program.child.exitCode !== null || program.child.signalCode !== null)
      throw new Error(
        `the program ended (${program.child.exitCode ?? program.child.signalCode}) before printing ${pattern}:\n${program.out}`,
      );
    await sleep(100);
  }
}

/** The pids of the processes whose command line names `dir`. */
function processesOf(dir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', dir]).toString().trim().split('\n').map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Whether `pid` runs: a zombie (dead, its exit status not yet collected by init) does not. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Waits, up to a bound far above what it takes, until the folder and every process of the environment are gone. */
async function gone(program: Program): Promise<{ dir: boolean; pids: number[] }> {
  for (let i = 0; i < 300 && (existsSync(program.dir) || program.pids.some(alive)); i++) await sleep(100);
  return { dir: existsSync(program.dir), pids: program.pids.filter(alive) };
}

const group = (program: Program, signal: NodeJS.Signals) => process.kill(-program.child.pid!, signal);
const fixture = (...args: string[]) => [...NODE, FIXTURE, ...args];
// coreutils `timeout` runs the program in a process group of its own; when its timer fires (SIGALRM)
// it sends its signal to the program and then to that whole group. SIGALRM is sent here to fire
// the timer at a moment the test picks (once the environment is ready) rather than after a delay.
const underTimeout = (...options: string[]) => ['timeout', ...options, '600', ...fixture()];

const cases: [string, string[], (p: Program) => void, { code: number | null; signal: NodeJS.Signals | null }][] = [
  ['Ctrl-C: SIGINT to its process group', fixture(), (p) => group(p, 'SIGINT'), { code: null, signal: 'SIGINT' }],
  ['SIGTERM to its process group', fixture(), (p) => group(p, 'SIGTERM'), { code: null, signal: 'SIGTERM' }],
  ['SIGHUP to its process group (a closed terminal)', fixture(), (p) => group(p, 'SIGHUP'), { code: null, signal: 'SIGHUP' }],
  ['SIGKILL to it alone', fixture(), (p) => p.child.kill('SIGKILL'), { code: null, signal: 'SIGKILL' }],
  ['SIGKILL to its process group', fixture(), (p) => group(p, 'SIGKILL'), { code: null, signal: 'SIGKILL' }],
  ['an uncaught exception', fixture(), (p) => p.child.stdin!.write('throw\n'), { code: 1, signal: null }],
  ['an unhandled rejection', fixture(), (p) => p.child.stdin!.write('reject\n'), { code: 1, signal: null }],
  ['process.exit(3)', fixture(), (p) => p.child.stdin!.write('exit\n'), { code: 3, signal: null }],
  ['`timeout 600 node program` timing out (SIGTERM)', underTimeout(), (p) => p.child.kill('SIGALRM'), { code: 124, signal: null }],
  [
    '`timeout -s KILL` timing out (SIGKILL to the group)',
    underTimeout('-s', 'KILL'),
    (p) => p.child.kill('SIGALRM'),
    { code: null, signal: 'SIGKILL' },
  ],
];

describe('the folder and processes of a test environment when the program that started it ends', () => {
  const programs = new Map<string, Program>();
  beforeAll(async () => {
    for (const [name, argv] of cases) programs.set(name, launch(argv));
    programs.set('handler', launch(fixture('handler')));
    programs.set('cli', launch([...NODE, MAIN, 'start']));
    await Promise.all(
      [...programs.values()].map(async (p) => {
        p.dir = (await output(p, /^(?:READY |KUBECONFIG=)(.+?)(?:\/kubeconfig)?$/m))[1];
        p.pids = processesOf(p.dir);
      }),
    );
  }, START);
  afterAll(() => {
    for (const p of programs.values()) if (p.child.exitCode === null && p.child.signalCode === null) group(p, 'SIGKILL');
  });

  it.each(cases)('should remove the folder and leave no process after %s', async (name, _argv, end, expected) => {
    const program = programs.get(name)!;
    expect(program.pids).toHaveLength(4); // etcd, kube-apiserver and the watchdog of each
    expect(program.pids.every(alive)).toBe(true);
    end(program);
    expect(await program.exit).toEqual(expected);
    expect(await gone(program)).toEqual({ dir: false, pids: [] });
  });

  it("should leave a program's own SIGINT handler in charge, its environment serving, until it stops it", async () => {
    const program = programs.get('handler')!;
    expect(program.pids).toHaveLength(4);
    group(program, 'SIGINT');
    expect((await output(program, /^SIGINT: .*$/m))[0]).toBe('SIGINT: served namespace default');
    expect(program.pids.every(alive)).toBe(true);
    expect(existsSync(program.dir)).toBe(true);
    program.child.stdin!.write('stop\n');
    expect(await program.exit).toEqual({ code: 0, signal: null });
    // stop() resolved before the program exited: nothing to wait for.
    expect({ dir: existsSync(program.dir), pids: program.pids.filter(alive) }).toEqual({ dir: false, pids: [] });
  });

  it('should stop `rxinformer-envtest start` on Ctrl-C, remove its folder, then die of SIGINT (exit status 130)', async () => {
    const program = programs.get('cli')!;
    expect(program.pids).toHaveLength(4);
    group(program, 'SIGINT');
    expect(await program.exit).toEqual({ code: null, signal: 'SIGINT' });
    expect({ dir: existsSync(program.dir), pids: program.pids.filter(alive) }).toEqual({ dir: false, pids: [] });
  });
});
