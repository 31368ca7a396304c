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
import { createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { createManager } from '@rxinformer/controller';
import { managerServers } from '@rxinformer/prometheus';
import { exampleProgram } from './program.ts';
import { replicator } from './replicator.ts';

const { kubeConfig: kc, leaderElection, log, logger, ms } = exampleProgram('configmap-replicator', ['metrics-port', 'probes-port']);
// Cluster-wide; managedFields dropped from the caches (nothing here reads them).
const factory = createKubeInformerFactory(kc, {
  transform: (obj) => {
    const { managedFields: _, ...metadata } = obj.metadata ?? {};
    return { ...obj, metadata };
  },
});
// One client: the controller's writes (req.api), the Lease and the Events all go through it.
const manager = createManager({ factory, client: kubeApiClient(kc), leaderElection, logger });
manager.election!.isLeader$.subscribe((leading) => log(leading ? 'leading' : 'standing by'));
replicator(manager, log);
manager
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
