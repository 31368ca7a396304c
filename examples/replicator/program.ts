/**
 * The command line the controller examples share (the replicator's, the pod reaper's): the
 * replica's id, its KubeConfig, the manager's election options, and a printer of one line each.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger, ManagerElectionOptions } from '@rxinformer/controller';
import { parseArgs } from 'node:util';

/** What `exampleProgram` read from the command line. */
export interface ExampleProgram {
  /** `--id`: unique per replica. */
  readonly id: string;
  /** `--kubeconfig PATH`, else $KUBECONFIG or ~/.kube/config. */
  readonly kubeConfig: KubeConfig;
  /** The Lease `lease` in `--lease-namespace` (default `default`), with the timing options given. */
  readonly leaderElection: ManagerElectionOptions;
  /** Prints `line` with the time and the id. */
  readonly log: (line: string) => void;
  /** Logs errors only (a read-your-writes timeout among them): the examples print what they do. */
  readonly logger: Logger;
  /** The number given as `--name`, if any. */
  readonly ms: (name: string) => number | undefined;
}

/**
 * Reads `--kubeconfig`, `--id`, `--lease-namespace`, client-go's Lease timing in ms
 * (`--lease-duration-ms`, `--renew-deadline-ms`, `--retry-period-ms`) and the `extra` options;
 * without an id, prints the usage and exits with code 2.
 */
export function exampleProgram(lease: string, extra: readonly string[] = []): ExampleProgram {
  const names = ['kubeconfig', 'id', 'lease-namespace', 'lease-duration-ms', 'renew-deadline-ms', 'retry-period-ms', ...extra];
  const { values: args } = parseArgs({ options: Object.fromEntries(names.map((o) => [o, { type: 'string' as const }])) }) as {
    values: Record<string, string | undefined>;
  };
  const id = args.id;
  if (!id) {
    console.error('usage: main.ts --id NAME [--kubeconfig PATH] [--lease-namespace NS] [--lease-duration-ms N] …');
    process.exit(2);
  }
  const log = (line: string) => console.log(`${new Date().toISOString()} ${id}: ${line}`);
  const ms = (name: string) => (args[name] === undefined ? undefined : Number(args[name]));
  const kubeConfig = new KubeConfig();
  if (args.kubeconfig) kubeConfig.loadFromFile(args.kubeconfig);
  else kubeConfig.loadFromDefault();
  const none = () => undefined;
  return {
    id,
    kubeConfig,
    leaderElection: {
      namespace: args['lease-namespace'] ?? 'default',
      name: lease,
      identity: id,
      leaseDurationMs: ms('lease-duration-ms'),
      renewDeadlineMs: ms('renew-deadline-ms'),
      retryPeriodMs: ms('retry-period-ms'),
    },
    log,
    logger: { error: (fields: object, message: string) => log(`error: ${message} ${JSON.stringify(fields)}`), warn: none, info: none },
    ms,
  };
}
