import { describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Runs the CLI with Node 22 (the one running the tests); output is collected as it arrives. */
function run(args: string[]): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    const cli = run(['--port', '0', '--pods', '4', '--rate', '0', '--seed', '2']);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const m = /open (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.out());
          if (m) resolve(m[1]);
        };
        cli.child.stdout!.on('data', check);
        void cli.exit.then((code) => reject(new Error(`exited with ${code} before printing the URL:\n${cli.out()}`)));
      });
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

  it('should refuse a bad option with the usage and exit code 2', async () => {
    const cli = run(['--pods', 'many']);
    expect(await cli.exit).toBe(2);
    expect(cli.out()).toContain('--pods must be a non-negative number, got "many"');
    expect(cli.out()).toContain('usage: npm run example:browser');
  });
});
