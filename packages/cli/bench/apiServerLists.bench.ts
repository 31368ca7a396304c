/**
 * `npm run bench:apiserver-lists`: kube-apiserver's peak memory and CPU while ten informers sync
 * the same pods at once, with paged lists and with streaming lists, rxinformer beside client-go
 * (apiServerLists.ts says how). Starts its own etcd and kube-apiserver (`@rxinformer/envtest`),
 * creates the pods through the API as a cluster writes them (unalike: the controller's create,
 * then the kubelet's status; 10 namespaces), then runs the rounds.
 *
 *   npm run bench:apiserver-lists                       # a Markdown table on stdout, progress on stderr
 *   npm run bench:apiserver-lists -- --json             # the runs as one JSON object instead
 *   options: --pods N (10000) --informers N (10) --rounds N (3)
 */
import { parseArgs } from 'node:util';
import { startTestEnvironment } from '@rxinformer/envtest';
import { buildClientGoPeer, clientGoVersion } from '@rxinformer/testing/servers';
import { measureApiServerLists, renderListRuns } from './apiServerLists.ts';
import { ENVIRONMENT, podLoad, seeded } from './realBench.ts';

const usage = 'usage: npm run bench:apiserver-lists -- [--json] [--pods N] [--informers N] [--rounds N]';

function options() {
  const { values } = parseArgs({
    options: { json: { type: 'boolean' }, pods: { type: 'string' }, informers: { type: 'string' }, rounds: { type: 'string' } },
  });
  const int = (name: 'pods' | 'informers' | 'rounds', fallback: number): number => {
    const text = values[name];
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`--${name} must be an integer ≥ 1, got ${text}\n${usage}`);
    return Number(text);
  };
  return { json: values.json === true, pods: int('pods', 10_000), informers: int('informers', 10), rounds: int('rounds', 3) };
}

const started = performance.now();
const progress = (text: string) =>
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);

async function main(): Promise<void> {
  const o = options();
  await buildClientGoPeer(); // nothing when current
  const env = await startTestEnvironment(ENVIRONMENT);
  const load = podLoad(env);
  try {
    progress(`creating ${o.pods} pods through the API`);
    const seeding = await seeded(load, o.pods);
    progress(`created in ${seeding.ms} ms (${seeding.writesPerSecond} writes/s)`);
    const runs = await measureApiServerLists(env, {
      ...o,
      onRun: (contender, round) => progress(`${o.informers} × ${contender}, round ${round + 1} of ${o.rounds}`),
    });
    if (o.json) process.stdout.write(`${JSON.stringify({ ...o, clientGo: clientGoVersion(), seeding, runs })}\n`);
    else process.stdout.write(`${o.informers} informers syncing ${o.pods} pods, ${o.rounds} rounds\n\n${renderListRuns(runs)}\n`);
  } finally {
    await load.target.close();
    await env.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
