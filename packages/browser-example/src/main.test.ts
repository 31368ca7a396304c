import { describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spkiHash } from './devCertificate.ts';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Resolves with the first group of `pattern` once the CLI has printed it; rejects if it exits first. */
function printed(cli: ReturnType<typeof run>, pattern: RegExp): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const m = pattern.exec(cli.out());
      if (m) resolve(m[1]);
    };
    check();
    cli.child.stdout!.on('data', check);
    void cli.exit.then((code) => reject(new Error(`exited with ${code} before printing ${pattern}:\n${cli.out()}`)));
  });
}

/** Runs the CLI with Node 22 (the one running the tests); output is collected as it arrives. */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, out: () => out, exit };
}

describe('npm run example:browser (main.ts)', () => {
  it('should print the URL of a page that lists the seeded pods through its proxy, and stop on SIGTERM', async () => {
    const cli = run(['--port', '0', '--pods', '4', '--rate', '0', '--seed', '2', '--http1']);
    try {
      const url = await printed(cli, /open (http:\/\/127\.0\.0\.1:\d+)/);
      expect((await fetch(url)).status).toBe(200);
      const list = (await (await fetch(`${url}/api/v1/pods`)).json()) as { items: unknown[] };
      expect(list.items).toHaveLength(4);
      // The fault command it suggests works as printed; the page's origin does not forward /_sim/.
      const [, faultUrl, header, body] = /curl -XPOST (\S+) -H '([^:]+: [^']+)' -d '([^']*)'/.exec(cli.out())!;
      const [name, value] = header.split(': ');
      expect((await fetch(faultUrl, { method: 'POST', headers: { [name]: value }, body })).status).toBe(200);
      expect((await fetch(`${url}/_sim/state`)).status).toBe(404);
      cli.child.kill('SIGTERM');
      expect(await cli.exit).toBe(0);
      expect(cli.out()).toContain('received SIGTERM, shutting down');
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  });

  it('should serve HTTP/2 over TLS by default, with a development certificate it makes and tells how to trust', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'example-cache-'));
    const cli = run(['--port', '0', '--pods', '3', '--rate', '0'], { ...process.env, XDG_CACHE_HOME: cache });
    try {
      const url = await printed(cli, /open (https:\/\/127\.0\.0\.1:\d+)/);
      const caFile = await printed(cli, /signed by the local CA (\S+)/);
      const spki = await printed(cli, /--ignore-certificate-errors-spki-list=(\S+)/);
      expect(caFile).toBe(join(cache, 'rxinformer', 'dev-tls', 'ca.pem'));
      const ca = await readFile(caFile, 'utf8');
      expect(spki).toBe(spkiHash(await readFile(join(cache, 'rxinformer', 'dev-tls', 'server.pem'), 'utf8')));
      const session = connect(url, { ca });
      try {
        const body = await new Promise<string>((resolve, reject) => {
          let text = '';
          const req = session.request({ ':path': '/api/v1/pods' });
          req.on('data', (c: Buffer) => (text += c.toString()));
          req.on('end', () => resolve(text));
          req.on('error', reject);
        });
        expect(session.alpnProtocol).toBe('h2');
        expect((JSON.parse(body) as { items: unknown[] }).items).toHaveLength(3);
      } finally {
        session.close();
      }
      cli.child.kill('SIGTERM');
      expect(await cli.exit).toBe(0);
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await rm(cache, { recursive: true, force: true });
    }
  });

  it('should refuse --cert without --key, and --http1 with them, with the usage and exit code 2', async () => {
    const alone = run(['--cert', 'x.pem']);
    expect(await alone.exit).toBe(2);
    expect(alone.out()).toContain('--cert and --key go together');
    const both = run(['--http1', '--cert', 'x.pem', '--key', 'y.pem']);
    expect(await both.exit).toBe(2);
    expect(both.out()).toContain('--http1 serves no TLS');
    const missing = run(['--cert', '/nonexistent/cert.pem', '--key', '/nonexistent/key.pem']);
    expect(await missing.exit).toBe(1);
    expect(missing.out()).toContain('cannot read /nonexistent/cert.pem');
  });

  it('should refuse a bad option with the usage and exit code 2', async () => {
    const cli = run(['--pods', 'many']);
    expect(await cli.exit).toBe(2);
    expect(cli.out()).toContain('--pods must be a non-negative number, got "many"');
    expect(cli.out()).toContain('usage: npm run example:browser');
  });
});
