/** `npm run apiserver` (src/main.ts) as its own process: start, kubeconfig, clean stop on signals. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWatch, req } from './helpers.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

interface Running {
  child: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out, exited };
}

async function waitForOutput(r: Running, pattern: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = r.out().match(pattern);
    if (m) return m;
    if (Date.now() > deadline || r.child.exitCode !== null) throw new Error(`no ${pattern} in: ${r.out()}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('main (npm run apiserver)', () => {
  const started: Running[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const r of started.splice(0)) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'should print the URL and kubeconfig path, serve, and stop cleanly on %s with a watch open',
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), 'sim-main-'));
      dirs.push(dir);
      const kubeconfig = join(dir, 'kc');
      const r = run(['--port', '0', '--seed', '3', '--kubeconfig', kubeconfig]);
      started.push(r);
      const [, url] = await waitForOutput(r, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await waitForOutput(r, new RegExp(`kubeconfig written to ${kubeconfig}`));
      expect(readFileSync(kubeconfig, 'utf8')).toContain(`server: "${url}"`);
      expect((await req(`${url}/version`)).body).toMatchObject({ major: '1', minor: '33' });
      const watch = await openWatch(`${url}/api/v1/pods?watch=true`); // an open watch must not hold the stop
      r.child.kill(signal);
      expect(await r.exited).toEqual({ code: 0, signal: null });
      await watch.ended;
      expect(r.out()).toContain(`received ${signal}, shutting down`);
      await expect(fetch(`${url}/version`)).rejects.toThrow();
      expect(existsSync(kubeconfig)).toBe(true); // the user's path is theirs
    },
  );

  it('should remove the kubeconfig it chose on exit, and keep one at a path given with --kubeconfig', async () => {
    const r = run(['--port', '0', '--token', 'secret']);
    started.push(r);
    const [, path] = await waitForOutput(r, /kubeconfig written to (\S+)/);
    expect(readFileSync(path, 'utf8')).toContain('secret');
    r.child.kill('SIGINT');
    expect((await r.exited).code).toBe(0);
    expect(existsSync(path)).toBe(false); // the token does not stay behind in the temporary directory
  });

  it('should require the token given with --token, on the API and the control endpoints', async () => {
    const r = run(['--port', '0', '--token', 'tok', '--kubeconfig', join(tmpdir(), `sim-main-token-${process.pid}.kc`)]);
    started.push(r);
    const [, url] = await waitForOutput(r, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const auth = { Authorization: 'Bearer tok' };
    expect((await req(`${url}/api/v1/pods`)).code).toBe(401);
    expect((await req(`${url}/api/v1/pods`, { headers: auth })).code).toBe(200);
    expect((await req(`${url}/_sim/state`)).code).toBe(401);
    expect((await req(`${url}/_sim/state`, { headers: auth })).code).toBe(200); // served by default
    expect((await req(`${url}/_sim/faults/auth`, { method: 'POST', body: { token: null } })).code).toBe(401);
    const plain = { method: 'POST', rawBody: '{"token":null}', contentType: 'text/plain', headers: auth };
    expect((await req(`${url}/_sim/faults/auth`, plain)).code).toBe(415);
    expect((await req(`${url}/api/v1/pods`)).code).toBe(401); // auth is still on
    r.child.kill('SIGTERM');
    expect((await r.exited).code).toBe(0);
    rmSync(join(tmpdir(), `sim-main-token-${process.pid}.kc`), { force: true });
  });

  it('should not serve the control endpoints with --no-control-endpoints', async () => {
    const r = run(['--port', '0', '--no-control-endpoints', '--kubeconfig', join(tmpdir(), `sim-main-noctl-${process.pid}.kc`)]);
    started.push(r);
    const [, url] = await waitForOutput(r, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await req(`${url}/_sim/state`)).code).toBe(404);
    expect((await req(`${url}/_sim/faults/dropWatches`, { method: 'POST', body: {} })).code).toBe(404);
    expect((await req(`${url}/api/v1/pods`)).code).toBe(200);
    r.child.kill('SIGTERM');
    expect((await r.exited).code).toBe(0);
    rmSync(join(tmpdir(), `sim-main-noctl-${process.pid}.kc`), { force: true });
  });

  it('should not write through a symlink planted at the old predictable path: its own 0700 directory, a 0600 file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-main-victim-'));
    dirs.push(dir);
    const target = join(dir, 'target');
    writeFileSync(target, 'original\n', { mode: 0o644 });
    const port = await freePort();
    const planted = join(tmpdir(), `rxinformer-sim-${port}.kubeconfig`);
    rmSync(planted, { force: true });
    symlinkSync(target, planted);
    try {
      const r = run(['--port', String(port), '--token', 'secret']);
      started.push(r);
      const [, path] = await waitForOutput(r, /kubeconfig written to (\S+)/);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      expect(mode(target)).toBe(0o644);
      expect(readlinkSync(planted)).toBe(target);
      expect(path).not.toBe(planted);
      expect(dirname(dirname(path))).toBe(tmpdir());
      expect(mode(dirname(path))).toBe(0o700);
      expect(lstatSync(path).isFile()).toBe(true);
      expect(mode(path)).toBe(0o600);
      expect(readFileSync(path, 'utf8')).toContain('token: "secret"');
      r.child.kill('SIGTERM');
      expect((await r.exited).code).toBe(0);
      expect(existsSync(dirname(path))).toBe(false); // the private directory goes with the token
    } finally {
      rmSync(planted, { force: true });
    }
  });

  it('should refuse a symlink given with --kubeconfig, and replace a file there (even a hard link) with a 0600 one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-main-user-'));
    dirs.push(dir);
    const target = join(dir, 'target');
    writeFileSync(target, 'original\n', { mode: 0o644 });
    const link = join(dir, 'link');
    symlinkSync(target, link);
    const refused = run(['--port', '0', '--token', 'secret', '--kubeconfig', link]);
    started.push(refused);
    expect((await refused.exited).code).toBe(1);
    expect(refused.out()).toContain(`refusing to write ${link}: it is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('original\n');

    const hard = join(dir, 'kc');
    linkSync(target, hard);
    const r = run(['--port', '0', '--token', 'secret', '--kubeconfig', hard]);
    started.push(r);
    await waitForOutput(r, new RegExp(`kubeconfig written to ${hard}`));
    expect(readFileSync(hard, 'utf8')).toContain('token: "secret"');
    expect(mode(hard)).toBe(0o600);
    expect(readFileSync(target, 'utf8')).toBe('original\n');
    r.child.kill('SIGTERM');
    expect((await r.exited).code).toBe(0);
    expect(existsSync(hard)).toBe(true); // the user's path is theirs
  });

  it('should honour shardSelector with --feature-gates ShardedListAndWatch=true, and refuse an unknown gate', async () => {
    const kc = join(tmpdir(), `sim-main-gate-${process.pid}.kc`);
    const r = run(['--port', '0', '--feature-gates', 'ShardedListAndWatch=true', '--kubeconfig', kc]);
    started.push(r);
    const [, url] = await waitForOutput(r, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await req(`${url}/api/v1/pods?shardSelector=${encodeURIComponent('shardRange(')}`)).code).toBe(500);
    r.child.kill('SIGTERM');
    expect((await r.exited).code).toBe(0);
    rmSync(kc, { force: true });
    const bad = run(['--feature-gates', 'NoSuchGate=true']);
    started.push(bad);
    expect((await bad.exited).code).toBe(2);
    expect(bad.out()).toContain('unknown or malformed gate "NoSuchGate=true"');
  });

  it('should refuse a bad option with exit code 2 and the usage', async () => {
    const r = run(['--port', 'eighty']);
    started.push(r);
    expect((await r.exited).code).toBe(2);
    expect(r.out()).toContain('--port must be a non-negative integer, got "eighty"');
    expect(r.out()).toContain('usage: rxinformer-apiserver');
    const both = run(['--control-endpoints', '--no-control-endpoints']);
    started.push(both);
    expect((await both.exited).code).toBe(2);
    expect(both.out()).toContain('--control-endpoints and --no-control-endpoints contradict each other');
  });
});
