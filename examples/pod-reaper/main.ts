/**
 * The pod reaper as a process: one manager, one client for every write (the reaper's, its Lease's),
 * leader-elected, stopped in order on SIGTERM. Prints what it does, one line each.
 *
 *   node --conditions=@rxinformer/source examples/pod-reaper/main.ts --kubeconfig ~/.kube/config --id reaper-1
 *
 * Options: --kubeconfig PATH (default: $KUBECONFIG, ~/.kube/config), --id NAME (required, unique per
 * replica), --lease-namespace NS (default `default`), and client-go's Lease timing in ms:
 * --lease-duration-ms (15000), --renew-deadline-ms (10000), --retry-period-ms (2000).
 */
import { createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { createManager } from '@rxinformer/controller';
import { exampleProgram } from '../replicator/program.ts';
import { reaper } from './reaper.ts';

const { kubeConfig: kc, leaderElection, log, logger } = exampleProgram('pod-reaper');
const manager = createManager({ factory: createKubeInformerFactory(kc), client: kubeApiClient(kc), leaderElection, logger });
manager.election!.isLeader$.subscribe((leading) => log(leading ? 'leading' : 'standing by'));
reaper(manager, log);
await manager.stopOnSignals().start();
await manager.done;
process.exit(0);
