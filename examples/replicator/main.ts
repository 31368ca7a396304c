/**
 * One replica of the ConfigMap replicator, on the manager. Every replica keeps its caches warm; the
 * one holding the Lease runs the controller, which on taking over reconciles everything cached, so
 * what changed while no replica led (a source edited, a source deleted) is applied. Prints what it
 * does, one line each; SIGTERM stops the controller, then releases the Lease, so another replica
 * leads at once.
 *
 *   node --conditions=@rxinformer/source examples/replicator/main.ts --kubeconfig ~/.kube/config --id replica-1
 *
 * Options: --kubeconfig PATH (default: $KUBECONFIG, ~/.kube/config), --id NAME (required, unique per
 * replica), --lease-namespace NS (default `default`), client-go's Lease timing in ms:
 * --lease-duration-ms (15000), --renew-deadline-ms (10000), --retry-period-ms (2000), and the ports
 * of /metrics and /readyz|/healthz: --metrics-port (8080), --probes-port (8081); 0 picks one.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, kubeApiClient, kubeLeaseClient } from '@rxinformer/client-node';
import { createEventRecorder, createManager } from '@rxinformer/controller';
import { leaderElection } from '@rxinformer/core/leader-election';
import { managerServers } from '@rxinformer/prometheus';
import { parseArgs } from 'node:util';
import { replicator } from './replicator.ts';

const names = [
  'kubeconfig',
  'id',
  'lease-namespace',
  'lease-duration-ms',
  'renew-deadline-ms',
  'retry-period-ms',
  'metrics-port',
  'probes-port',
];
const { values: args } = parseArgs({
  options: Object.fromEntries(names.map((o) => [o, { type: 'string' }])) as Record<string, { type: 'string' }>,
});
const id = args.id;
if (!id) {
  console.error('usage: main.ts --id NAME [--kubeconfig PATH] [--lease-namespace NS] [--lease-duration-ms N] …');
  process.exit(2);
}
const log = (line: string) => console.log(`${new Date().toISOString()} ${id}: ${line}`);
const ms = (name: string) => (args[name] === undefined ? undefined : Number(args[name]));

const kc = new KubeConfig();
if (args.kubeconfig) kc.loadFromFile(args.kubeconfig);
else kc.loadFromDefault();
// Cluster-wide; managedFields dropped from the caches (nothing here reads them).
const factory = createKubeInformerFactory(kc, {
  transform: (obj) => {
    const { managedFields: _, ...metadata } = obj.metadata ?? {};
    return { ...obj, metadata };
  },
});
const client = kubeApiClient(kc);
const events = createEventRecorder({ client, reportingController: 'replicator.example.com/replicator', reportingInstance: id });
const election = leaderElection({
  client: kubeLeaseClient(kc),
  namespace: args['lease-namespace'] ?? 'default',
  name: 'configmap-replicator',
  identity: id,
  leaseDurationMs: ms('lease-duration-ms'),
  renewDeadlineMs: ms('renew-deadline-ms'),
  retryPeriodMs: ms('retry-period-ms'),
});
election.isLeader$.subscribe((leading) => log(leading ? 'leading' : 'standing by'));

const manager = createManager({ factory, leaderElection: election, logger: quiet() });
manager
  .add(replicator({ factory, client, events, log }))
  .add({ name: 'events', needsLeadership: false, start: () => events }) // its queue flushed at shutdown
  .add(
    managerServers(manager, {
      metricsPort: ms('metrics-port') ?? 8080,
      probesPort: ms('probes-port') ?? 8081,
      onListening: ({ metrics, probes }) => log(`serving ${metrics?.url}/metrics ${probes?.url}/readyz`),
    }),
  )
  .stopOnSignals();
manager.phase$.subscribe((phase) => phase === 'stopping' && log('stopping'));
await manager.start();
await manager.done;
process.exit(0);

/** The manager's own lines are left out: this example prints what it does, one line each. */
function quiet() {
  const none = () => undefined;
  return { error: (fields: object, message: string) => log(`${message} ${JSON.stringify(fields)}`), warn: none, info: none };
}
