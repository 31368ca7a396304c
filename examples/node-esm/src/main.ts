import { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';

const kc = new KubeConfig();
kc.loadFromDefault(); // $KUBECONFIG, ~/.kube/config or in-cluster
const factory = createKubeInformerFactory(kc, { namespace: 'default' });
const informer = factory.informerFor(pods); // SharedInformer<Wire<V1Pod>>: one list+watch, one cache
informer.addEventHandler({
  onAdd: (pod) => console.log('added', pod.metadata?.name),
  onUpdate: (_old, pod) => console.log('updated', pod.metadata?.name, pod.status?.phase),
  onDelete: ({ key, lastKnown, finalStateUnknown }) =>
    console.log('deleted', lastKnown?.metadata?.name ?? key, finalStateUnknown ? '(while disconnected)' : ''),
});
factory.start();
await factory.waitForCacheSync({ timeoutMs: 60_000 }); // rejects naming each informer not synced and why
console.log('synced:', informer.getStore().list().length, 'pods cached');
process.once('SIGINT', () => void factory.close());
