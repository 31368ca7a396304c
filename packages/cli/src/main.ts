#!/usr/bin/env node
/**
 * The `rxinformer` command: the live view (no subcommand), `soak`, `apiserver`. In the repository
 * `npm start -- …`, `npm run soak -- …` and `npm run apiserver -- …` run the same from source.
 *
 *   rxinformer [--resource pods] [-n NS] [--kubeconfig PATH] …   # live view; --help for the rest
 *   rxinformer soak --runs 3 [--json]                            # the chaos soak
 *   rxinformer apiserver --port 6443                             # the API server simulator
 *   rxinformer demo-sharded --replicas 3 --objects 3000 [--json]  # sharding and leader election, multi-process
 *
 * Exit codes: 0 on success, 2 for a bad command line, 1 for anything else.
 */
import { readFileSync } from 'node:fs';
import { runApiServerCommand } from '@rxinformer/apiserver-sim';
import { runLiveCommand } from './live/liveMain.ts';
import { runReplicaCommand, runShardedCommand } from './sharded/shardedMain.ts';
import { runSoakCommand } from './soak/soakMain.ts';

/** The usage text of `rxinformer --help` (the live view's own options follow it). */
export const COMMAND_USAGE = `rxinformer — Kubernetes informers as RxJS Observables, on the command line

  rxinformer [options]        a live view of a resource (kubectl get -w style); without a kubeconfig
                              it starts an embedded API server simulator with churn and faults
  rxinformer soak [options]   the chaos soak: rxinformer and client-node's makeInformer through faults
  rxinformer apiserver [...]  the API server simulator alone, with a kubeconfig for kubectl
  rxinformer demo-sharded     replica processes sharding ConfigMaps on Leases, then leader election
  rxinformer --version        the version

Each command takes --help.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'soak') return runSoakCommand(rest);
  if (command === 'apiserver') return runApiServerCommand(rest);
  if (command === 'demo-sharded') return runShardedCommand(rest);
  if (command === 'demo-sharded-replica') return runReplicaCommand(rest);
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (command === '--help' || command === '-h') process.stdout.write(`${COMMAND_USAGE}\n\n`);
  return runLiveCommand(argv);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (process.stdout.isTTY) process.stdout.write('\u001b[?25h\u001b[?1049l'); // never leave the terminal on the alternate screen
  process.stderr.write(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
