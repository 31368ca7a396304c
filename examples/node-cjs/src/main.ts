// The first program in a CommonJS project: TypeScript compiles these imports to require() calls,
// which Node 22 answers with the packages' ES modules (require of ESM).
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';
import { KubeApiError } from '@rxinformer/core';

async function main(): Promise<void> {
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
  informer.status$.subscribe((s) => {
    if (s.lastError instanceof KubeApiError) console.log('api error', s.lastError.code);
  });
  factory.start();
  await factory.waitForCacheSync();
  console.log('synced:', informer.getStore().list().length, 'pods cached');
  process.once('SIGINT', () => void factory.close());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
