/**
 * The smallest object of each built-in descriptor that a real kube-apiserver accepts (its
 * validation wants a container, a port, a selector matching a template, a schedule...); the
 * simulator stores them as they are.
 */
import type { KubeObject } from '@rxinformer/core';
import { apiVersionOf, type KubeResource } from '../src/index.ts';

const labels = { app: 'every' };
const podSpec = (restartPolicy = 'Always') => ({ restartPolicy, containers: [{ name: 'c', image: 'nginx' }] });
const template = (restartPolicy?: string) => ({ metadata: { labels }, spec: podSpec(restartPolicy) });
const workload = { selector: { matchLabels: labels }, template: template() };
const eventTime = '2026-01-01T00:00:00.000000Z';

/** The spec (and other top-level fields) of each built-in kind, by `group/resource`. */
const bodies: Record<string, (namespace: string) => Record<string, unknown>> = {
  '/pods': () => ({ spec: podSpec() }),
  '/services': () => ({ spec: { ports: [{ port: 80 }] } }),
  '/endpoints': () => ({}),
  '/configmaps': () => ({ data: { a: '1' } }),
  '/secrets': () => ({ stringData: { a: '1' } }),
  '/nodes': () => ({}),
  '/namespaces': () => ({}),
  '/events': (namespace) => ({
    involvedObject: { kind: 'Pod', namespace, name: 'somewhere' },
    reason: 'Tested',
    message: 'an event',
    type: 'Normal',
    source: { component: 'rxinformer-test' },
  }),
  '/persistentvolumeclaims': () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  '/persistentvolumes': () => ({
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/every' } },
  }),
  '/serviceaccounts': () => ({}),
  'apps/deployments': () => ({ spec: workload }),
  'apps/replicasets': () => ({ spec: workload }),
  'apps/statefulsets': () => ({ spec: { ...workload, serviceName: 'every' } }),
  'apps/daemonsets': () => ({ spec: workload }),
  'batch/jobs': () => ({ spec: { template: template('Never') } }),
  'batch/cronjobs': () => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: template('Never') } } } }),
  'networking.k8s.io/ingresses': () => ({ spec: { defaultBackend: { service: { name: 'every', port: { number: 80 } } } } }),
  'coordination.k8s.io/leases': () => ({ spec: { holderIdentity: 'every', leaseDurationSeconds: 15 } }),
  'events.k8s.io/events': (namespace) => ({
    eventTime,
    reportingController: 'rxinformer.test/every',
    reportingInstance: 'every-1',
    action: 'Test',
    reason: 'Tested',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace, name: 'somewhere' },
  }),
};

/** A valid `r` named `name` (in `namespace` when `r` is namespaced). */
export function builtinObject(r: KubeResource, name: string, namespace: string): KubeObject {
  const body = bodies[`${r.group}/${r.resource}`];
  if (!body) throw new Error(`no test object for ${r.group}/${r.resource}`);
  return {
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    metadata: { name, ...(r.namespaced && { namespace }), labels },
    ...body(namespace),
  };
}

/** The collection path of `r` (in `namespace` when namespaced). */
export function collectionPath(r: KubeResource, namespace: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced ? `${base}/namespaces/${namespace}/${r.resource}` : `${base}/${r.resource}`;
}
