import { CoreV1Api } from '@kubernetes/client-node';
import { startTestEnvironment } from '@rxinformer/envtest';

const env = await startTestEnvironment(); // etcd + kube-apiserver, ready, `default` namespace there
try {
  const core = env.kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hello' }, data: { a: '1' } } });
  console.log((await core.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata?.name));
} finally {
  await env.stop(); // both processes gone, every file removed
}
