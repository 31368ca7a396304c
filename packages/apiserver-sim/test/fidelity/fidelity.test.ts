/**
 * The simulator held to the real thing: every case sends the same requests to the simulator and to
 * kube-apiserver v1.36.3 (`@rxinformer/envtest`), each in a fresh namespace of the same name, and
 * expects the same answers less what is volatile (`normalize.ts`). Where the simulator knowingly
 * differs, the case leaves that part out and says so; the simulator's README lists it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { runCase, type FidelityCase } from './transcript.ts';
import { closeWatchAgents } from './watchStream.ts';
import { dump } from './dump.ts';
import { listCases } from './listCases.ts';
import { pathCases } from './pathCases.ts';
import { tableCases } from './tableCases.ts';
import { watchCases } from './watchCases.ts';
import { writeCases } from './writeCases.ts';

const withReal = serverKinds().includes('real');
if (!withReal) console.warn('fidelity tests skipped: RXINFORMER_SERVERS leaves out the real server');

(withReal ? describe : describe.skip)('the simulator answers as kube-apiserver 1.36.3', () => {
  let sim: TestServer;
  let real: TestServer;
  beforeAll(async () => {
    [sim, real] = await Promise.all([startTestServer('sim'), startTestServer('real')]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([sim?.close(), real?.close()]);
    await closeWatchAgents();
  });

  let serial = 0;
  const cases: FidelityCase[] = [...writeCases, ...pathCases, ...listCases, ...watchCases, ...tableCases];
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    if (process.env.FIDELITY_ONLY && !c.name.includes(process.env.FIDELITY_ONLY)) return;
    const { sim: s, real: r } = await runCase(c, sim, real, `fid-${++serial}`);
    if (process.env.FIDELITY_DUMP) dump(process.env.FIDELITY_DUMP, c.name, s, r);
    expect(s).toEqual(r);
  });
});
