/** Watch lifecycle: no session nor timer outlives its client or the server's close(). */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { sleep } from './helpers.ts';

const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** Starts a request and aborts it after `ms`; resolves once the abort happened. */
async function abortAfter(url: string, ms: number): Promise<void> {
  const ac = new AbortController();
  const done = fetch(url, { signal: ac.signal })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
  await sleep(ms);
  ac.abort();
  await done;
}

describe('watch lifecycle', () => {
  let sim: ApiServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('should register no watch when the client leaves while the latency fault delays it', async () => {
    sim = await startApiServer({ port: 0 });
    sim.faults.latency(300);
    await abortAfter(`${sim.url}/api/v1/pods?watch=true&allowWatchBookmarks=true`, 50);
    await sleep(450);
    expect(sim.watches.sessions()).toEqual([]);
  });

  it('should register no watch when the client leaves while a streaming list waits for its revision', async () => {
    sim = await startApiServer({ port: 0, tooLargeWaitMs: 2000 });
    const next = Number(sim.storage.resourceVersion) + 1;
    await abortAfter(
      `${sim.url}/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${next}`,
      50,
    );
    sim.storage.create('configmaps', { metadata: { name: 'tick' } }, 'default');
    await sleep(150);
    expect(sim.watches.sessions()).toEqual([]);
  });

  it('should let the process exit once close() returns, even with a watch held by the latency fault', async () => {
    const script = `
      import { startApiServer } from ${JSON.stringify(INDEX)};
      const sim = await startApiServer({ port: 0 });
      sim.faults.latency(20000);
      fetch(sim.url + '/api/v1/pods?watch=true').catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
      await sim.close();
      console.log('closed');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = sleep(8000).then(() => 'still running');
    const result = await Promise.race([exited, deadline]);
    if (result === 'still running') child.kill('SIGKILL');
    expect({ result, out: out.trim() }).toEqual({ result: 0, out: 'closed' });
  }, 15_000);
});
