/**
 * A cached `go build`: the programs of a Go module, built with the `go` on the PATH into a folder of
 * the envtest cache named after a hash of the module's go.mod, go.sum, the sources named and the
 * command line, so that a second build finds them current and does nothing. Used for etcd and
 * kube-apiserver (`buildBinaries`), and for other Go programs a test suite runs beside them.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BuildError } from './errors.ts';
import { tailOf } from './logTail.ts';

/** Where cached builds go, and the environment that names it. */
export interface GoBuildCacheOptions {
  /**
   * Where built binaries are cached. Default `$RXINFORMER_ENVTEST_CACHE`, else
   * `$XDG_CACHE_HOME/rxinformer-envtest`, else `~/.cache/rxinformer-envtest`.
   */
  cacheDir?: string;
  /** The environment read for the cache variables. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** What to build from a Go module, and what the result is called. */
export interface GoProgramsBuild {
  /** The folder holding the module's go.mod and go.sum; the build runs there. */
  readonly moduleDir: string;
  /** The start of the cache folder's name (a hash follows), e.g. `kube-v1.36.3`. */
  readonly name: string;
  /** The packages `go build` builds, e.g. `k8s.io/kubernetes/cmd/kube-apiserver` or `.`. */
  readonly packages: readonly string[];
  /** The `-ldflags` argument. Default: none. */
  readonly ldflags?: string;
  /** Files of the module (relative to `moduleDir`) hashed besides go.mod and go.sum: its own source. Default: none. */
  readonly sources?: readonly string[];
  /** The binaries the folder holds once built (after `rename`): all present means current. */
  readonly binaries: readonly string[];
  /** Binaries to rename after the build, from Go's name to ours, e.g. `{ server: 'etcd' }`. Default: none. */
  readonly rename?: Readonly<Record<string, string>>;
  /** Files to write beside the binaries, name to content. Default: none. */
  readonly extraFiles?: Readonly<Record<string, string>>;
  /** The build log's name in the cache folder. Default `${name}.build.log`. */
  readonly logName?: string;
}

/** What `buildGoPrograms` (or `buildBinaries`) did. */
export interface BuildResult {
  /** The folder holding the binaries. */
  readonly dir: string;
  /** False when the binaries were current and nothing was built. */
  readonly built: boolean;
  /** How long the build took, in ms (0 when nothing was built). */
  readonly ms: number;
}

/** The envtest cache: `cacheDir`, else `$RXINFORMER_ENVTEST_CACHE`, else `$XDG_CACHE_HOME/rxinformer-envtest`, else `~/.cache/rxinformer-envtest`. */
export function goBuildCacheRoot(options: GoBuildCacheOptions = {}): string {
  const env = options.env ?? process.env;
  return options.cacheDir ?? env.RXINFORMER_ENVTEST_CACHE ?? join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rxinformer-envtest');
}

/** The folder `build`'s binaries go to: its name and a hash of go.mod, go.sum, its sources and its command line. */
export function goBuildDir(build: GoProgramsBuild, options: GoBuildCacheOptions = {}): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', ...(build.sources ?? [])]) hash.update(readFileSync(join(build.moduleDir, file)));
  hash.update(JSON.stringify(goBuildCommand(build, '')));
  return join(goBuildCacheRoot(options), `${build.name}-${hash.digest('hex').slice(0, 12)}`);
}

/**
 * Builds `build`'s programs with the `go` on the PATH (or `options.go`) unless its cache folder
 * already holds them; the folder appears whole or not at all. Throws `BuildError` naming the build
 * log when Go fails or is missing.
 *
 * @example
 * const { dir } = await buildGoPrograms({ moduleDir, name: 'peer', packages: ['.'], binaries: ['peer'], sources: ['main.go'] });
 */
export async function buildGoPrograms(build: GoProgramsBuild, options: GoBuildCacheOptions & { go?: string } = {}): Promise<BuildResult> {
  const dir = goBuildDir(build, options);
  if (build.binaries.every((binary) => existsSync(join(dir, binary)))) return { dir, built: false, ms: 0 };
  mkdirSync(join(dir, '..'), { recursive: true });
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const logFile = join(dir, '..', build.logName ?? `${build.name}.build.log`);
  const started = performance.now();
  const [command, ...args] = goBuildCommand(build, `${staging}/`);
  try {
    await runLogged(options.go ?? command, args, build.moduleDir, logFile);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  for (const [from, to] of Object.entries(build.rename ?? {})) renameSync(join(staging, from), join(staging, to));
  for (const [file, content] of Object.entries(build.extraFiles ?? {})) writeFileSync(join(staging, file), content);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return { dir, built: true, ms: Math.round(performance.now() - started) };
}

/** The `go build` command line: the module's own dependencies (`-mod=readonly`), trimmed paths. */
function goBuildCommand(build: GoProgramsBuild, out: string): string[] {
  const ldflags = build.ldflags === undefined ? [] : [`-ldflags=${build.ldflags}`];
  return ['go', 'build', '-mod=readonly', '-trimpath', ...ldflags, '-o', out, ...build.packages];
}

/** Runs `command` in `cwd` with its output in `logFile`; rejects with `BuildError`. */
function runLogged(command: string, args: string[], cwd: string, logFile: string): Promise<void> {
  const log = createWriteStream(logFile);
  log.write(`$ ${command} ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
