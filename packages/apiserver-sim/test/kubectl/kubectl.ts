/**
 * Real kubectl builds for the kubectl cases: where they are (`kubectl.1.<minor>` beside the `kubectl`
 * dispatcher on the PATH), a runner of one build with a kubeconfig file and a fresh cache, and the
 * server (simulator or kube-apiserver) each describe block runs it against.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { START_TIMEOUT_MS, startTestServer, type ServerKind, type TestServer } from '@rxinformer/testing/servers';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The folder of the `kubectl` on the PATH (the real file, not a link to it), or undefined. */
export function kubectlDir(): string | undefined {
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return onPath ? dirname(realpathSync(onPath)) : undefined;
  } catch {
    return undefined;
  }
}

/** The minors of `wanted` whose `kubectl.1.<minor>` build is in `dir`. */
export function kubectlBuilds(dir: string | undefined, wanted: readonly string[]): string[] {
  return wanted.filter((minor) => dir !== undefined && existsSync(join(dir, `kubectl.1.${minor}`)));
}

/** What one kubectl run gave. */
export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of one run. */
export interface KubectlRunOptions {
  /** Killed (and the run rejected) after this long. Default 60 s: a cold discovery on busy cores. */
  timeoutMs?: number;
  /** Called with everything printed so far, at each chunk of stdout. */
  onStdout?: (all: string, child: ChildProcess) => void;
}

/** Runs one kubectl build with `--kubeconfig` and `--cache-dir`, `HOME` set to `home`. */
export interface Kubectl {
  (args: string[], options?: KubectlRunOptions): Promise<KubectlRun>;
  /** Runs and resolves to stdout; rejects on a non-zero exit, with stderr. */
  ok(args: string[]): Promise<string>;
}

/** A runner of the kubectl binary `bin` against the server of `kubeconfig`. */
export function kubectlRunner(bin: string, kubeconfig: string, cacheDir: string, home: string): Kubectl {
  const run = (args: string[], options: KubectlRunOptions = {}): Promise<KubectlRun> =>
    new Promise((resolve, reject) => {
      const child = spawn(bin, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], {
        env: { ...process.env, HOME: home, KUBECONFIG: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`kubectl ${args.join(' ')} timed out; stdout: ${stdout}; stderr: ${stderr}`));
      }, options.timeoutMs ?? 60_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        options.onStdout?.(stdout, child);
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  return Object.assign(run, {
    ok: async (args: string[]) => {
      const r = await run(args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
  });
}

/** A Pod `web` with an `nginx` container of `image` and a `sidecar`, labelled `labels` (YAML flow). */
export const podManifest = (image: string, labels: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {${labels}}
spec:
  containers:
  - name: nginx
    image: ${image}
    ports: [{containerPort: 80}]
  - name: sidecar
    image: busybox:1.36
`;

/**
 * A Deployment manifest named `name` (its pods labelled `app: <name>`) with one `web` container:
 * `container` and `podSpec` are extra YAML lines of the container and of the pod spec.
 */
export const deploymentYaml = (name: string, extra: { labels?: string; container?: string[]; podSpec?: string[] }) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    ...(extra.labels !== undefined ? [`  labels: {${extra.labels}}`] : []),
    'spec:',
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    '    spec:',
    '      containers:',
    '      - name: web',
    '        image: nginx:1.27',
    ...(extra.container ?? []).map((l) => `        ${l}`),
    ...(extra.podSpec ?? []).map((l) => `      ${l}`),
    '',
  ].join('\n');

/** The server and the kubectl build one describe block runs against. */
export interface KubectlContext {
  readonly server: TestServer;
  readonly kubectl: Kubectl;
  /** The block's own namespace: its kubeconfig context's, where its namespaced commands go. */
  readonly namespace: string;
  /** A private folder for manifests (and kubectl's HOME and cache). */
  readonly tmp: string;
  /** Writes `text` to `name` in `tmp`; returns its path. */
  file(name: string, text: string): string;
}

/**
 * One kube-apiserver for every block of a test file (each start costs seconds; it reports 1.36.3
 * to every build alike), started by the first block and stopped by the last.
 */
let shared: { server?: Promise<TestServer>; users: number } = { users: 0 };

function serverFor(kind: ServerKind, minor: string): Promise<TestServer> {
  if (kind === 'sim') return startTestServer(kind, { sim: { seed: Number(minor), version: { major: '1', minor } } });
  return (shared.server ??= startTestServer(kind));
}

async function release(kind: ServerKind, server: TestServer | undefined): Promise<void> {
  if (kind === 'sim') return server?.close();
  if (--shared.users > 0) return;
  const last = shared.server;
  shared = { users: 0 };
  await (await last?.catch(() => undefined))?.close();
}

/**
 * Registers the `beforeAll` and `afterAll` of a describe block: a server of `kind` (a fresh
 * simulator reporting version 1.`minor`; the file's one kube-apiserver, its own 1.36.3), a namespace
 * of the block's own, a kubeconfig file through the fault proxy with that namespace (mode 0600) and
 * a fresh `--cache-dir`. Returns the context, filled once started.
 */
export function useKubectl(kind: ServerKind, dir: string, minor: string): KubectlContext {
  const ctx = {} as { server: TestServer; kubectl: Kubectl; namespace: string; tmp: string };
  if (kind === 'real') shared.users++;
  beforeAll(async () => {
    ctx.server = await serverFor(kind, minor);
    ctx.namespace = await ctx.server.namespace(`kubectl-${minor}`);
    ctx.tmp = mkdtempSync(join(tmpdir(), `kubectl-${kind}-${minor}-`));
    const kubeconfig = join(ctx.tmp, 'kubeconfig');
    const kc = ctx.server.kubeConfig();
    kc.contexts = kc.contexts.map((c) => ({ ...c, namespace: ctx.namespace }));
    writeFileSync(kubeconfig, kc.exportConfig(), { mode: 0o600 });
    ctx.kubectl = kubectlRunner(join(dir, `kubectl.1.${minor}`), kubeconfig, join(ctx.tmp, 'cache'), ctx.tmp);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await release(kind, ctx.server);
    if (ctx.tmp) rmSync(ctx.tmp, { recursive: true, force: true });
  });
  return {
    get server() {
      return ctx.server;
    },
    get kubectl() {
      return ctx.kubectl;
    },
    get namespace() {
      return ctx.namespace;
    },
    get tmp() {
      return ctx.tmp;
    },
    file: (name, text) => {
      const path = join(ctx.tmp, name);
      writeFileSync(path, text);
      return path;
    },
  };
}
