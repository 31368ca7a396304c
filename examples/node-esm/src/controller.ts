import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { configMaps, createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { controllerFor, createManager, isAlreadyExists, resourceApi } from '@rxinformer/controller';

const kc = new KubeConfig();
kc.loadFromFile('./envtest.kubeconfig');
const client = kubeApiClient(kc);
// One client for every write: the reconciles' (req.api), the Lease's and the Events'.
const factory = createKubeInformerFactory(kc, { namespace: 'default' });
const mgr = createManager({
  factory,
  client,
  leaderElection: { namespace: 'default', name: 'settings-controller', identity: hostname() },
});
controllerFor(mgr, configMaps, { name: 'settings', fieldSelector: 'metadata.name=settings' }).reconcile(async ({ object, api }) => {
  if (object === undefined) return;
  if (object.data?.mode !== 'fast') {
    // Sends the resourceVersion read, then /data/mode and the label: not the whole object.
    const updated = await api(configMaps).update(object, (draft) => {
      draft.data = { ...draft.data, mode: 'fast' };
      draft.metadata!.labels = { ...draft.metadata!.labels, 'example.com/tier': 'gold' };
    });
    console.log(updated.metadata?.resourceVersion, updated.data);
  }
  void mgr.stop(); // the ConfigMap is fast: this program's work is done; stop, releasing the Lease
});

await resourceApi(client, configMaps)
  .create({ metadata: { namespace: 'default', name: 'settings' }, data: { mode: 'slow' } })
  .catch((e) => {
    if (!isAlreadyExists(e)) throw e;
  });
await mgr.stopOnSignals().start();
await mgr.done;
await factory.close(); // the informers' connections: the process may end
