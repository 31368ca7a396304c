/**
 * Sample objects for `--sim`: two nodes, three namespaces, and in each a deployment with its
 * replica set and pods, a stateful set, a job, a service, config maps and events, in the states a
 * dashboard colours (running, pending, failing, complete). Written straight into the simulator's
 * storage, so its watches see them like any other write.
 */
import type { ApiServer } from '@rxinformer/apiserver-sim';

/** The namespaces the sample fills. */
export const SAMPLE_NAMESPACES = ['web', 'data', 'batch'];

type Input = Parameters<ApiServer['storage']['create']>[1];

/** Writes the sample into the simulator; returns how many objects it wrote. */
export function writeSample(sim: ApiServer): number {
  let written = 0;
  const create = (resource: string, object: Input, namespace?: string) => {
    sim.storage.create(resource, object, namespace);
    written++;
  };
  const now = new Date().toISOString();
  for (const name of ['node-1', 'node-2'])
    create('nodes', {
      metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } },
      status: { conditions: [{ type: 'Ready', status: name === 'node-1' ? 'True' : 'False', lastTransitionTime: now }] },
    });
  SAMPLE_NAMESPACES.forEach((ns, n) => {
    create('namespaces', { metadata: { name: ns }, status: { phase: 'Active' } });
    const app = `${ns}-app`;
    const labels = { app };
    const ready = n === 2 ? 1 : 2;
    create(
      'deployments.apps',
      {
        metadata: { name: app, labels },
        spec: { replicas: 2, selector: { matchLabels: labels } },
        status: { replicas: 2, readyReplicas: ready, availableReplicas: ready },
      },
      ns,
    );
    create(
      'replicasets.apps',
      { metadata: { name: `${app}-7d9f`, labels }, spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: ready } },
      ns,
    );
    for (let i = 0; i < 3; i++) {
      const phase = i < ready ? 'Running' : n === 2 ? 'Failed' : 'Pending';
      const pod = `${app}-7d9f-${'abc'[i]}x${n}`;
      create(
        'pods',
        {
          metadata: { name: pod, labels },
          spec: { nodeName: i % 2 ? 'node-2' : 'node-1', containers: [{ name: 'main', image: 'nginx:1.27' }] },
          status: { phase, containerStatuses: [{ name: 'main', ready: phase === 'Running', restartCount: n === 2 ? 4 : 0 }] },
        },
        ns,
      );
      create(
        'events',
        {
          metadata: { name: `${pod}.1` },
          involvedObject: { kind: 'Pod', name: pod, namespace: ns },
          type: phase === 'Running' ? 'Normal' : 'Warning',
          reason: phase === 'Running' ? 'Started' : 'BackOff',
          message: phase === 'Running' ? 'Started container main' : 'Back-off restarting failed container',
          count: 1,
        },
        ns,
      );
    }
    create(
      'statefulsets.apps',
      { metadata: { name: `${ns}-db` }, spec: { replicas: 1, serviceName: `${ns}-db` }, status: { replicas: 1, readyReplicas: 1 } },
      ns,
    );
    create(
      'jobs.batch',
      {
        metadata: { name: `${ns}-migrate` },
        spec: { completions: 1 },
        status: { succeeded: n === 1 ? 0 : 1, conditions: n === 1 ? [] : [{ type: 'Complete', status: 'True' }] },
      },
      ns,
    );
    create(
      'services',
      { metadata: { name: app }, spec: { type: 'ClusterIP', clusterIP: `10.96.0.${10 + n}`, ports: [{ port: 80, protocol: 'TCP' }] } },
      ns,
    );
    create('configmaps', { metadata: { name: `${app}-config` }, data: { LOG_LEVEL: 'info', REGION: 'eu-west' } }, ns);
  });
  return written;
}
