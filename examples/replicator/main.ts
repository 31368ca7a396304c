/**
 * One replica of the ConfigMap replicator. Every replica keeps its caches warm; the one holding the
 * Lease runs the controller, which on taking over reconciles everything cached, so what changed
 * while no replica led (a source edited, a source deleted) is applied. Prints what it does, one
 * line each; SIGTERM stops the controller, then releases the Lease.
 *
 *   node --conditions=@rxinformer/source examples/replicator/main.ts --kubeconfig ~/.kube/config --id replica-1
 *
 * Options: --kubeconfig PATH (default: $KUBECONFIG, ~/.kube/config), --id NAME (required, unique per
 * replica), --lease-namespace NS (default `default`), and client-go's Lease timing in ms:
 * --lease-duration-ms (15000), --renew-deadline-ms (10000), --retry-period-ms (2000).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, kubeApiClient, kubeLeaseClient } from '@rxinformer/client-node';
import { createEventRecorder } from '@rxinformer/controller';
import { leaderElection, whileLeading } from '@rxinformer/core/leader-election';
import { parseArgs } from 'node:util';
import { replicator } from './replicator.ts';

const { values: args } = parseArgs({
  options: Object.fromEntries(
    ['kubeconfig', 'id', 'lease-namespace', 'lease-duration-ms', 'renew-deadline-ms', 'retry-period-ms'].map((o) => [
      o,
      { type: 'string' },
    ]),
  ) as Record<string, { type: 'string' }>,
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
const controller = replicator({ factory, client, events, log });
factory.start(); // warm caches while standing by: a new leader starts reconciling at once

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
const run = whileLeading(election, () => controller.start()).subscribe();

process.once('SIGTERM', () => {
  log('stopping');
  run.unsubscribe(); // stops the controller; the election is left once it has stopped
  void Promise.all([election.stop(), events.stop()])
    .then(() => factory.close())
    .then(() => process.exit(0));
});
