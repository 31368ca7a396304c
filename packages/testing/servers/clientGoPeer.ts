/**
 * The client-go peer: a Go program (`packages/testing/clientgo`) that runs one of client-go's shared
 * informers against a server and writes what its handler sees as JSON lines, so that tests and
 * benchmarks can hold rxinformer to client-go on the same server. Built by `npm run testenv:build`
 * into the envtest cache (nothing when current), or by `buildClientGoPeer()`.
 *
 *   const peer = await startClientGoPeer({ kubeConfig: server.kubeConfig(), resource: 'configmaps', namespace: ns });
 *   await peer.waitFor((l) => l.event === 'synced');
 *   const { lines, store } = await peer.stop();
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { buildGoPrograms, goBuildDir, type BuildResult, type GoBuildCacheOptions, type GoProgramsBuild } from '@rxinformer/envtest';
import { parsePeerLine, type PeerLine, type PeerObject, type ResultLine } from './clientGoLines.ts';

export * from './clientGoLines.ts';

/** The Go module of the peer. */
export const CLIENT_GO_PEER_DIR = fileURLToPath(new URL('../clientgo/', import.meta.url));

/** The client-go version the peer's go.mod requires, e.g. `v0.36.3`. */
export function clientGoVersion(): string {
  const mod = readFileSync(join(CLIENT_GO_PEER_DIR, 'go.mod'), 'utf8');
  return /^\s*k8s\.io\/client-go\s+(v\S+)/m.exec(mod)?.[1] ?? 'unknown';
}

/** The peer's build: its Go sources hashed with go.mod and go.sum, so an edit rebuilds it. */
function peerBuild(): GoProgramsBuild {
  const sources = readdirSync(CLIENT_GO_PEER_DIR)
    .filter((f) => f.endsWith('.go'))
    .sort();
  return {
    moduleDir: CLIENT_GO_PEER_DIR,
    name: `clientgo-peer-${clientGoVersion()}`,
    packages: ['.'],
    ldflags: '-s -w',
    sources,
    binaries: ['clientgo-peer'],
  };
}

/** Where the peer's binary is (or will be, once built). */
export function clientGoPeerPath(options: GoBuildCacheOptions = {}): string {
  return join(goBuildDir(peerBuild(), options), 'clientgo-peer');
}

/** Builds the peer with the `go` on the PATH into the envtest cache, unless it is current (seconds with Go's build cache warm). */
export function buildClientGoPeer(options: GoBuildCacheOptions = {}): Promise<BuildResult> {
  return buildGoPrograms(peerBuild(), options);
}

/** What the peer runs. */
export interface ClientGoPeerOptions {
  /** The server: a KubeConfig (written to a temporary file for the peer) or a kubeconfig file. */
  kubeConfig: KubeConfig | string;
  /** `watch` (the default) or a bench: `sync`, `heap` or `watch` after `--events` events. */
  mode?: 'watch' | 'bench sync' | 'bench heap' | 'bench watch';
  /** The resource (plural). Default `configmaps`. */
  resource?: string;
  /** Its API group. Default `''` (core). */
  group?: string;
  /** Its API version. Default `v1`. */
  version?: string;
  /** Default: all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The informer's resync period, in ms. Default 0 (none). */
  resyncMs?: number;
  /** client-go's WatchListClient gate. Default: client-go's (on in v0.36) or the inherited `KUBE_FEATURE_WatchListClient`. */
  watchList?: boolean;
  /** Ask for protobuf (typed informers only). Default JSON. */
  protobuf?: boolean;
  /** The dynamic informer even for a built-in resource. */
  dynamic?: boolean;
  /** A request line for each HTTP request. */
  logRequests?: boolean;
  /** The first list at this resourceVersion exactly, so the watch replays what came after (needs `watchList: false`). */
  listAt?: string;
  /** bench watch: the handler calls to count, the initial list's adds aside. */
  events?: number;
  /** bench: give up after, in ms. Default 5 minutes. */
  timeoutMs?: number;
  /** The binary. Default `clientGoPeerPath()` (build it first). */
  binary?: string;
}

/** How a peer ended. */
export interface ClientGoPeerRun {
  /** Every line it wrote. */
  readonly lines: readonly PeerLine[];
  /** The store line's items (a watch run that ended normally), else undefined. */
  readonly store?: readonly PeerObject[];
  /** The bench's result line, if any. */
  readonly result?: ResultLine;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Its stderr (client-go's klog output). */
  readonly stderr: string;
}

/** A running peer. */
export interface ClientGoPeer {
  /** The lines so far. */
  readonly lines: readonly PeerLine[];
  /** Its stderr so far. */
  readonly stderr: () => string;
  /** Resolves with the first line (so far or to come) `match` accepts; rejects if the peer exits first or after `timeoutMs` (default 30 s). */
  waitFor<T extends PeerLine>(match: (line: PeerLine) => line is T, timeoutMs?: number): Promise<T>;
  waitFor(match: (line: PeerLine) => boolean, timeoutMs?: number): Promise<PeerLine>;
  /** Ends its stdin (a watch writes the store and exits), and resolves once it exited. */
  stop(): Promise<ClientGoPeerRun>;
  /** Resolves once it exited, however. */
  readonly exited: Promise<ClientGoPeerRun>;
  /** SIGKILL. */
  kill(): void;
}

/** The peer's command line for `options`. */
export function clientGoPeerArgs(options: ClientGoPeerOptions, kubeconfigPath: string): string[] {
  const o = options;
  const args = [...(o.mode ?? 'watch').split(' '), `--kubeconfig=${kubeconfigPath}`, `--resource=${o.resource ?? 'configmaps'}`];
  const flags: [string, string | number | undefined][] = [
    ['group', o.group],
    ['version', o.version],
    ['namespace', o.namespace],
    ['label-selector', o.labelSelector],
    ['field-selector', o.fieldSelector],
    ['resync', o.resyncMs === undefined ? undefined : `${o.resyncMs}ms`],
    ['watch-list', o.watchList === undefined ? undefined : o.watchList ? 'on' : 'off'],
    ['list-at', o.listAt],
    ['events', o.events],
    ['timeout', o.timeoutMs === undefined ? undefined : `${o.timeoutMs}ms`],
  ];
  for (const [name, value] of flags) if (value !== undefined) args.push(`--${name}=${value}`);
  for (const [name, on] of [
    ['protobuf', o.protobuf],
    ['dynamic', o.dynamic],
    ['log-requests', o.logRequests],
  ] as const)
    if (on) args.push(`--${name}`);
  return args;
}

/**
 * Starts the peer and resolves once it wrote its start line (rejects if it exits before). Its stdin
 * is a pipe from this process: if this process ends, the peer sees EOF and ends too.
 */
export async function startClientGoPeer(options: ClientGoPeerOptions): Promise<ClientGoPeer> {
  const binary = options.binary ?? clientGoPeerPath();
  if (!existsSync(binary)) throw new Error(`the client-go peer is not built (${binary}): run \`npm run testenv:build\``);
  const dir = mkdtempSync(join(tmpdir(), 'clientgo-peer-'));
  let kubeconfig = options.kubeConfig as string;
  if (typeof options.kubeConfig !== 'string')
    writeFileSync((kubeconfig = join(dir, 'kubeconfig')), options.kubeConfig.exportConfig(), { mode: 0o600 });
  const child = spawn(binary, clientGoPeerArgs(options, kubeconfig), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {}); // EPIPE when ending the stdin of a peer that has exited
  const output = followOutput(child, () => rmSync(dir, { recursive: true, force: true }));
  const first = await output
    .waitFor((l) => l.event === 'start' || l.event === 'fatal')
    .catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
  if (first.event === 'fatal') throw new Error(`the client-go peer could not start: ${first.message}`);
  return {
    ...output,
    stop: () => (child.stdin.end(), output.exited),
    kill: () => void child.kill('SIGKILL'),
  };
}

/** The peer's output as it comes: its lines parsed, its stderr, waiting for a line, and how it ended. */
function followOutput(child: ChildProcessWithoutNullStreams, cleanup: () => void): Omit<ClientGoPeer, 'stop' | 'kill'> {
  const lines: PeerLine[] = [];
  const waiters = new Set<(line: PeerLine | undefined) => void>();
  let stderr = '';
  let closed = false;
  child.once('error', (error) => (stderr += `${error.message}\n`)); // 'close' follows
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = parsePeerLine(text);
    lines.push(line);
    for (const waiter of [...waiters]) waiter(line);
  });
  const exited = new Promise<ClientGoPeerRun>((resolve) => {
    // 'close' comes after stdout ended, so after its last line.
    child.once('close', (code, signal) => {
      closed = true;
      cleanup();
      for (const waiter of [...waiters]) waiter(undefined);
      const last = lines.at(-1);
      const store = last?.event === 'store' ? last.items : undefined;
      resolve({ lines, code, signal, stderr, store, result: last?.event === 'result' ? last : undefined });
    });
  });
  const describe = (why: string) =>
    new Error(
      `${why}; its last lines:\n${lines
        .slice(-10)
        .map((l) => JSON.stringify(l))
        .join('\n')}\nits stderr:\n${stderr.slice(-2000)}`,
    );
  const waitFor = (match: (line: PeerLine) => boolean, timeoutMs = 30_000) =>
    new Promise<PeerLine>((resolve, reject) => {
      const found = lines.find(match);
      if (found) return resolve(found);
      if (closed) return reject(describe('the client-go peer has exited'));
      const settle = (line: PeerLine | undefined, why = 'the client-go peer exited first') => {
        waiters.delete(waiter);
        clearTimeout(timer);
        if (line) resolve(line);
        else reject(describe(why));
      };
      const timer = setTimeout(() => settle(undefined, `no such line within ${timeoutMs} ms`), timeoutMs);
      const waiter = (line: PeerLine | undefined) => (line === undefined ? settle(undefined) : match(line) && settle(line));
      waiters.add(waiter);
    });
  return { lines, stderr: () => stderr, waitFor: waitFor as ClientGoPeer['waitFor'], exited };
}
