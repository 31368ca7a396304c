import { KubeConfig } from '@kubernetes/client-node';
import { configMaps, kubeApiClient } from '@rxinformer/client-node';
import { isAlreadyExists, resourceApi, retryOnConflict } from '@rxinformer/controller';

const kc = new KubeConfig();
kc.loadFromFile('./envtest.kubeconfig');
const cms = resourceApi(kubeApiClient(kc), configMaps);

await cms.create({ metadata: { namespace: 'default', name: 'settings' }, data: { mode: 'slow' } }).catch((e) => {
  if (!isAlreadyExists(e)) throw e;
});
const updated = await retryOnConflict(async () => {
  const cm = await cms.get({ namespace: 'default', name: 'settings' });
  // Sends the resourceVersion read, then /data/mode and the label: not the whole object.
  return cms.update(cm, (draft) => {
    draft.data = { ...draft.data, mode: 'fast' };
    draft.metadata!.labels = { ...draft.metadata!.labels, 'example.com/tier': 'gold' };
  });
});
console.log(updated.metadata?.resourceVersion, updated.data);
