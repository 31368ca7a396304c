#!/usr/bin/env node
/**
 * The `rxinformer` command: the live view (no subcommand), `soak`, `apiserver`. In the repository
 * `npm start -- …`, `npm run soak -- …` and `npm run apiserver -- …` run the same from source.
 *
 *   rxinformer [--resource pods] [-n NS] [--kubeconfig PATH] …   # live view; --help for the rest
 *   rxinformer soak --runs 3 [--json]                            # the chaos soak
 *   rxinformer apiserver --port 6443                             # the API server simulator
 *   rxinformer hub --kubeconfig PATH --token-auth-file F --authorize-as-hub   # a dashboard hub replica
 *   rxinformer demo-sharded --replicas 3 --objects 3000 [--json]  # sharding and leader election, multi-process
 *
 * Exit codes: 0 on success, 2 for a bad command line, 1 for anything else.
 */
import { readFileSync } from 'node:fs';

/** The usage text of `rxinformer --help` (the live view's own options follow it). */
export const COMMAND_USAGE = `rxinformer — Kubernetes informers as RxJS Observables, on the command line

  rxinformer [options]        a live view of a resource (kubectl get -w style); without a kubeconfig
                              it starts an embedded API server simulator with churn and faults
  rxinformer soak [options]   the chaos soak: rxinformer and client-node's makeInformer through faults
  rxinformer apiserver [...]  the API server simulator alone, with a kubeconfig for kubectl
  rxinformer hub [options]    one replica of the dashboard hub (@rxinformer/hub), its metrics for Prometheus
  rxinformer demo-sharded     replica processes sharding ConfigMaps on Leases, then leader election
  rxinformer --version        the version

Each command takes --help.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Each command loads only its own modules: a demo replica process holds core, not the simulator or the live view. */
async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'soak') return (await import('./soak/soakMain.ts')).runSoakCommand(rest);
  if (command === 'apiserver') return (await import('@rxinformer/apiserver-sim')).runApiServerCommand(rest);
  if (command === 'hub') return (await import('./hub/hubMain.ts')).runHubCommand(rest);
  if (command === 'demo-sharded') return (await import('./sharded/shardedMain.ts')).runShardedCommand(rest);
  if (command === 'demo-sharded-replica') {
    const { parseReplicaArgs, runReplica } = await import('./sharded/replica.ts');
    return runReplica(parseReplicaArgs(rest));
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (command === '--help' || command === '-h') process.stdout.write(`${COMMAND_USAGE}\n\n`);
  return (await import('./live/liveMain.ts')).runLiveCommand(argv);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (process.stdout.isTTY) process.stdout.write('\u001b[?25h\u001b[?1049l'); // never leave the terminal on the alternate screen
  process.stderr.write(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
