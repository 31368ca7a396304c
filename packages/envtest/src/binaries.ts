/**
 * The binaries a test environment runs, etcd and kube-apiserver: found in a folder the caller names,
 * in `KUBEBUILDER_ASSETS` (setup-envtest's layout, so a user's own envtest binaries work), or built
 * from the Go module this package ships (`testenv/go.mod` and `go.sum`) into a cache folder keyed by
 * that module's content, where a second build finds them current and does nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BinaryNotFoundError } from './errors.ts';
import { buildGoPrograms, goBuildDir, type BuildResult, type GoBuildCacheOptions, type GoProgramsBuild } from './goBuild.ts';

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
export interface BinaryOptions extends GoBuildCacheOptions {
  /** A folder holding `etcd` and `kube-apiserver`; looked at first. Default: none. */
  assetsDir?: string;
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
  return goBuildDir(testenvBuild(), options);
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

/**
 * Builds etcd and kube-apiserver from the shipped Go module with the `go` on the PATH (Go 1.26 or
 * newer; modules through the Go module proxy), unless the cache already holds them for this exact
 * go.mod and go.sum. Throws `BuildError` naming the build log when Go fails or is missing.
 *
 * @example
 * const { dir, built, ms } = await buildBinaries(); // minutes when cold, nothing when current
 */
export async function buildBinaries(options: BinaryOptions & { go?: string } = {}): Promise<BuildResult> {
  return buildGoPrograms(testenvBuild(), options);
}

/** The build of both tools, with a `/version` that tells the truth. */
function testenvBuild(): GoProgramsBuild {
  const versions = moduleVersions();
  const [major, minor] = versions.kubernetes.replace(/^v/, '').split('.');
  const v = 'k8s.io/component-base/version';
  const ldflags = [
    '-s -w',
    `-X ${v}.gitVersion=${versions.kubernetes}`,
    `-X ${v}.gitMajor=${major}`,
    `-X ${v}.gitMinor=${minor}`,
    `-X ${v}.gitTreeState=clean`,
  ].join(' ');
  return {
    moduleDir: GO_MODULE_DIR,
    name: `kube-${versions.kubernetes}`,
    packages: ['k8s.io/kubernetes/cmd/kube-apiserver', 'go.etcd.io/etcd/server/v3'],
    ldflags,
    binaries: ['etcd', 'kube-apiserver'],
    rename: { server: 'etcd' }, // go names go.etcd.io/etcd/server/v3's binary "server"
    extraFiles: { 'versions.json': `${JSON.stringify(versions)}\n` },
    logName: 'build.log',
  };
}
