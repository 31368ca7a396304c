/**
 * The binaries a test environment runs, etcd and kube-apiserver: found in a folder the caller names,
 * in `KUBEBUILDER_ASSETS` (setup-envtest's layout, so a user's own envtest binaries work), or built
 * from the Go module this package ships (`testenv/go.mod` and `go.sum`) into a cache folder keyed by
 * that module's content, where a second build finds them current and does nothing.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BinaryNotFoundError, BuildError } from './errors.ts';
import { tailOf } from './logTail.ts';

/** Where the two binaries are, and where they came from. */
export interface EnvtestBinaries {
  /** The etcd binary. */
  readonly etcd: string;
  /** The kube-apiserver binary. */
  readonly kubeApiServer: string;
  /** Which source they were found in. */
  readonly from: 'assetsDir' | 'KUBEBUILDER_ASSETS' | 'built';
}

/** Options of `findBinaries` and `buildBinaries`. */
export interface BinaryOptions {
  /** A folder holding `etcd` and `kube-apiserver`; looked at first. Default: none. */
  assetsDir?: string;
  /**
   * Where built binaries are cached. Default `$RXINFORMER_ENVTEST_CACHE`, else
   * `$XDG_CACHE_HOME/rxinformer-envtest`, else `~/.cache/rxinformer-envtest`.
   */
  cacheDir?: string;
  /** The environment read for `KUBEBUILDER_ASSETS` and the cache variables. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The Go module this package ships, whose `tool` lines are the two binaries. */
export const GO_MODULE_DIR = fileURLToPath(new URL('../testenv/', import.meta.url));

/** The versions the Go module builds. */
export interface ModuleVersions {
  /** `k8s.io/kubernetes`'s, e.g. `v1.36.3`. */
  kubernetes: string;
  /** `go.etcd.io/etcd/server/v3`'s, e.g. `v3.6.8`. */
  etcd: string;
}

/** The Kubernetes and etcd versions the Go module builds, read from its go.mod. */
export function moduleVersions(): ModuleVersions {
  const mod = readFileSync(join(GO_MODULE_DIR, 'go.mod'), 'utf8');
  const version = (path: string) => new RegExp(`^\\s*${path.replace(/[./]/g, '\\$&')}\\s+(v\\S+)`, 'm').exec(mod)?.[1] ?? 'unknown';
  return { kubernetes: version('k8s.io/kubernetes'), etcd: version('go.etcd.io/etcd/server/v3') };
}

/** The folder built binaries go to: named after the Kubernetes version and a hash of go.mod, go.sum and the flags. */
export function builtDir(options: BinaryOptions = {}): string {
  const env = options.env ?? process.env;
  const cache =
    options.cacheDir ?? env.RXINFORMER_ENVTEST_CACHE ?? join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rxinformer-envtest');
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(join(GO_MODULE_DIR, file)));
  hash.update(JSON.stringify(buildCommand('')));
  return join(cache, `kube-${moduleVersions().kubernetes}-${hash.digest('hex').slice(0, 12)}`);
}

/**
 * Finds etcd and kube-apiserver in `assetsDir` when given, else in `KUBEBUILDER_ASSETS` when set,
 * else in the cache of `buildBinaries`. Throws `BinaryNotFoundError` naming what is missing where.
 *
 * @example
 * const { etcd, kubeApiServer } = findBinaries(); // after `npx rxinformer-envtest build`
 */
export function findBinaries(options: BinaryOptions = {}): EnvtestBinaries {
  const env = options.env ?? process.env;
  // The first source named wins: a folder the caller named is never silently replaced by another.
  const [from, dir]: [EnvtestBinaries['from'], string] =
    options.assetsDir !== undefined
      ? ['assetsDir', options.assetsDir]
      : env.KUBEBUILDER_ASSETS
        ? ['KUBEBUILDER_ASSETS', env.KUBEBUILDER_ASSETS]
        : ['built', builtDir(options)];
  const etcd = join(dir, 'etcd');
  const kubeApiServer = join(dir, 'kube-apiserver');
  const missing = [etcd, kubeApiServer].filter((file) => !existsSync(file));
  if (missing.length > 0) throw new BinaryNotFoundError(missing.map((f) => basename(f)).join(' and '), missing, from);
  return { etcd, kubeApiServer, from };
}

/** What `buildBinaries` did. */
export interface BuildResult {
  /** The folder holding etcd and kube-apiserver. */
  readonly dir: string;
  /** False when the binaries were current and nothing was built. */
  readonly built: boolean;
  /** How long the build took, in ms (0 when nothing was built). */
  readonly ms: number;
}

/**
 * Builds etcd and kube-apiserver from the shipped Go module with the `go` on the PATH (Go 1.26 or
 * newer; modules through the Go module proxy), unless the cache already holds them for this exact
 * go.mod and go.sum. Throws `BuildError` naming the build log when Go fails or is missing.
 *
 * @example
 * const { dir, built, ms } = await buildBinaries(); // minutes when cold, nothing when current
 */
export async function buildBinaries(options: BinaryOptions & { go?: string } = {}): Promise<BuildResult> {
  const dir = builtDir(options);
  if (existsSync(join(dir, 'etcd')) && existsSync(join(dir, 'kube-apiserver'))) return { dir, built: false, ms: 0 };
  mkdirSync(join(dir, '..'), { recursive: true });
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const logFile = join(dir, '..', 'build.log');
  const started = performance.now();
  const [command, ...args] = buildCommand(`${staging}/`);
  try {
    await runLogged(options.go ?? command, args, logFile);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  renameSync(join(staging, 'server'), join(staging, 'etcd')); // go names go.etcd.io/etcd/server/v3's binary "server"
  writeFileSync(join(staging, 'versions.json'), `${JSON.stringify(moduleVersions())}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return { dir, built: true, ms: Math.round(performance.now() - started) };
}

/** The `go build` command line: both tools, trimmed paths, and a `/version` that tells the truth. */
function buildCommand(out: string): string[] {
  const { kubernetes } = moduleVersions();
  const [major, minor] = kubernetes.replace(/^v/, '').split('.');
  const v = 'k8s.io/component-base/version';
  const ldflags = [
    '-s -w',
    `-X ${v}.gitVersion=${kubernetes}`,
    `-X ${v}.gitMajor=${major}`,
    `-X ${v}.gitMinor=${minor}`,
    `-X ${v}.gitTreeState=clean`,
  ].join(' ');
  return [
    'go',
    'build',
    '-mod=readonly',
    '-trimpath',
    `-ldflags=${ldflags}`,
    '-o',
    out,
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'go.etcd.io/etcd/server/v3',
  ];
}

/** Runs `command` in the Go module's folder with its output in `logFile`; rejects with `BuildError`. */
function runLogged(command: string, args: string[], logFile: string): Promise<void> {
  const log = createWriteStream(logFile);
  log.write(`$ ${command} ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: GO_MODULE_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    // 'close' comes last, after 'error' too when Go could not be started.
    child.once('close', (code) => {
      log.end(() => {
        if (spawnError)
          reject(
            new BuildError(`could not run ${command}: ${spawnError.message} (is Go 1.26 or newer installed?)`, logFile, {
              cause: spawnError,
            }),
          );
        else if (code === 0) resolve();
        else reject(new BuildError(`go build exited with ${code}:\n${tailOf(logFile)}`, logFile));
      });
    });
  });
}
