import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { applyConflictError, findApplyConflicts } from './applyConflicts.ts';
import { pruneDroppedFields } from './applyPrune.ts';
import { listTypeAt, patchMergeKeyAt, rootScope } from './listMergeStrategies.ts';
import { fieldsOf, withManagedFields } from './managedFields.ts';
import { applyStrategicMergePatch, mergeAppliedConfiguration } from './strategicMerge.ts';
import { changedFields } from './updateOwnership.ts';

const T = '2025-01-01T00:00:00Z';
const UID = '5f0c8a52-8f3e-4c7a-9d1b-2e6f4a3b1c0d';

/** A pod as a controller writes it: an owner, a finalizer, two mounts of one volume, a keyed port, tolerations. */
const pod = (opts: { cachePath?: string; readOnly?: boolean } = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      finalizers: ['example.com/protect'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f', uid: UID, controller: true }],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          args: ['--port', '8080'],
          ports: [
            { containerPort: 8080, protocol: 'TCP', name: 'http' },
            { containerPort: 8080, protocol: 'UDP' },
          ],
          volumeMounts: [
            { name: 'data', mountPath: '/data', readOnly: opts.readOnly ?? false },
            { name: 'data', mountPath: opts.cachePath ?? '/cache', subPath: 'cache' },
          ],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }],
      hostIPs: [{ ip: '10.0.0.1' }],
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'web', ready: true }],
    },
  }) as KubeObject;

describe('list types', () => {
  it('should look lists up by kind and path, the longest entry winning, and leave custom resources to the guess', () => {
    expect(listTypeAt('Pod.spec.containers.ports')).toEqual({ type: 'map', keys: ['containerPort', 'protocol'] });
    expect(listTypeAt('Deployment.spec.template.spec.initContainers.ports')).toEqual({ type: 'map', keys: ['containerPort', 'protocol'] });
    expect(listTypeAt('Service.spec.ports')).toEqual({ type: 'map', keys: ['port', 'protocol'] });
    expect(listTypeAt('Pod.metadata.finalizers')).toEqual({ type: 'set' });
    expect(listTypeAt('Namespace.spec.finalizers')).toEqual({ type: 'atomic' });
    expect(listTypeAt('Pod.status.hostIPs')).toEqual({ type: 'atomic' });
    expect(listTypeAt('Pod.spec.unknownList')).toBeUndefined();
    expect(rootScope({ apiVersion: 'example.com/v1', kind: 'Pod' })).toBeUndefined();
    expect(rootScope({ apiVersion: 'apps/v1', kind: 'Deployment' })).toBe('Deployment');
  });

  it('should give strategic merge patch its own keys: container ports by containerPort alone, Service ports by port, tolerations none', () => {
    expect(patchMergeKeyAt('Pod.spec.containers.ports')).toBe('containerPort');
    expect(patchMergeKeyAt('Service.spec.ports')).toBe('port');
    expect(patchMergeKeyAt('Pod.spec.tolerations')).toBeUndefined();
    expect(patchMergeKeyAt('Pod.metadata.finalizers')).toBe('');
  });
});

describe('fieldsOf with the list types', () => {
  it('should describe a realistic pod as the API server does', () => {
    expect(fieldsOf(pod())).toEqual({
      'f:metadata': {
        'f:finalizers': { 'v:"example.com/protect"': {} },
        'f:ownerReferences': {
          [`k:{"uid":"${UID}"}`]: { '.': {}, 'f:apiVersion': {}, 'f:kind': {}, 'f:name': {}, 'f:uid': {}, 'f:controller': {} },
        },
      },
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': {
            '.': {},
            'f:name': {},
            'f:image': {},
            'f:args': {},
            'f:ports': {
              'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {}, 'f:name': {} },
              'k:{"containerPort":8080,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
            },
            'f:volumeMounts': {
              'k:{"mountPath":"/data"}': { '.': {}, 'f:name': {}, 'f:mountPath': {}, 'f:readOnly': {} },
              'k:{"mountPath":"/cache"}': { '.': {}, 'f:name': {}, 'f:mountPath': {}, 'f:subPath': {} },
            },
          },
        },
        'f:volumes': { 'k:{"name":"data"}': { '.': {}, 'f:name': {}, 'f:emptyDir': {} } },
        'f:tolerations': {},
      },
    });
  });

  it('should describe the status: podIPs by ip, conditions by type, hostIPs and containerStatuses atomic', () => {
    expect(fieldsOf(pod(), 'status')).toEqual({
      'f:status': {
        'f:podIPs': { 'k:{"ip":"10.244.0.5"}': { '.': {}, 'f:ip': {} }, 'k:{"ip":"fd00::5"}': { '.': {}, 'f:ip': {} } },
        'f:hostIPs': {},
        'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:type': {}, 'f:status': {} } },
        'f:containerStatuses': {},
      },
    });
  });

  it("should key a Service's ports by port and protocol", () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {
        clusterIPs: ['10.96.0.10'],
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        ],
      },
    } as KubeObject;
    expect(fieldsOf(svc)).toEqual({
      'f:spec': {
        'f:clusterIPs': {},
        'f:ports': {
          'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} },
          'k:{"port":53,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
        },
      },
    });
  });

  it("should keep the guess for a custom resource's lists", () => {
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Pod',
      metadata: { name: 'w' },
      spec: { ports: [{ containerPort: 1, protocol: 'TCP' }] },
    } as KubeObject;
    expect(fieldsOf(widget)).toEqual({
      'f:spec': { 'f:ports': { 'k:{"containerPort":1}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } } },
    });
  });
});

describe('apply conflicts, pruning and update ownership with the list types', () => {
  const owned = (obj: KubeObject, manager: string) =>
    ({ ...obj, metadata: { ...obj.metadata, managedFields: withManagedFields(undefined, obj, manager, 'Apply', T) } }) as KubeObject;

  it('should name a keyed port field as the API server prints it', () => {
    const current = owned(pod(), 'ci');
    const applied = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0' },
      spec: { containers: [{ name: 'web', ports: [{ containerPort: 8080, protocol: 'UDP', name: 'metrics' }] }] },
    } as KubeObject;
    const current2 = owned(
      {
        ...pod(),
        spec: {
          ...(pod() as unknown as { spec: object }).spec,
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ports: [
                { containerPort: 8080, protocol: 'TCP', name: 'http' },
                { containerPort: 8080, protocol: 'UDP', name: 'dns' },
              ],
            },
          ],
        },
      } as KubeObject,
      'ci',
    );
    expect(findApplyConflicts(current, applied, 'other')).toEqual([]); // the UDP port has no name yet: adding one is no conflict
    const conflicts = findApplyConflicts(current2, applied, 'other');
    expect(conflicts.map((c) => c.field)).toEqual(['.spec.containers[name="web"].ports[containerPort=8080,protocol="UDP"].name']);
    expect(conflicts[0].keys).toEqual([
      'f:spec',
      'f:containers',
      'k:{"name":"web"}',
      'f:ports',
      'k:{"containerPort":8080,"protocol":"UDP"}',
      'f:name',
    ]);
    expect(applyConflictError(conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "ci": .spec.containers[name="web"].ports[containerPort=8080,protocol="UDP"].name',
    );
  });

  it('should conflict on the mount whose path matches, not on another mount of the same volume', () => {
    const current = owned(pod(), 'ci');
    const applied = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0' },
      spec: { containers: [{ name: 'web', volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }] }] },
    } as KubeObject;
    expect(findApplyConflicts(current, applied, 'other').map((c) => c.field)).toEqual([
      '.spec.containers[name="web"].volumeMounts[mountPath="/data"].readOnly',
    ]);
  });

  it('should conflict on an atomic list as a whole', () => {
    const current = owned(pod(), 'ci');
    const applied = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0' },
      spec: { tolerations: [{ key: 'x', operator: 'Exists' }] },
    } as KubeObject;
    expect(findApplyConflicts(current, applied, 'other').map((c) => c.field)).toEqual(['.spec.tolerations']);
  });

  it('should prune a dropped mount by its path, keeping the other mount of the same volume', () => {
    const current = owned(pod(), 'ci');
    const applied = pod();
    (applied as unknown as { spec: { containers: { volumeMounts: unknown[] }[] } }).spec.containers[0].volumeMounts.pop();
    const pruned = pruneDroppedFields(current, current.metadata!.managedFields as never, applied, 'ci') as {
      spec: { containers: { volumeMounts: unknown[] }[] };
    };
    expect(pruned.spec.containers[0].volumeMounts).toEqual([{ name: 'data', mountPath: '/data', readOnly: false }]);
  });

  it('should give an update the one mount it changed, and an atomic list whole', () => {
    const before = pod();
    const after = {
      ...pod({ cachePath: '/tmp/cache' }),
      spec: { ...(pod({ cachePath: '/tmp/cache' }) as unknown as { spec: object }).spec, tolerations: [] },
    } as KubeObject;
    const { changed, removed } = changedFields(before, after);
    expect(changed).toEqual({
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': {
            'f:volumeMounts': { 'k:{"mountPath":"/tmp/cache"}': { '.': {}, 'f:name': {}, 'f:mountPath': {}, 'f:subPath': {} } },
          },
        },
        'f:tolerations': {},
      },
    });
    expect(removed).toEqual({
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:volumeMounts': { 'k:{"mountPath":"/cache"}': {} } } }, 'f:tolerations': {} },
    });
  });
});

describe('strategic merge patch with the list types', () => {
  it('should replace tolerations, merge container ports by containerPort and Service ports by port', () => {
    const patched = applyStrategicMergePatch(pod(), {
      spec: {
        tolerations: [{ key: 'a', operator: 'Exists' }],
        containers: [{ name: 'web', ports: [{ containerPort: 9090, protocol: 'TCP' }] }],
      },
    }) as { spec: { tolerations: unknown[]; containers: { ports: unknown[] }[] } };
    expect(patched.spec.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
    expect(patched.spec.containers[0].ports).toHaveLength(3);
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
    };
    const merged = applyStrategicMergePatch(svc, {
      spec: {
        ports: [
          { port: 80, targetPort: 8080 },
          { name: 'https', port: 443 },
        ],
      },
    });
    expect(merged.spec.ports).toEqual([
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
      { name: 'https', port: 443 },
    ]);
  });

  it('should merge an applied configuration by the list-map keys: a TCP and a UDP port of one number stay two items', () => {
    const applied = {
      spec: {
        containers: [
          {
            name: 'web',
            ports: [
              { containerPort: 8080, protocol: 'TCP', name: 'web' },
              { containerPort: 8080, protocol: 'UDP', name: 'udp' },
            ],
          },
        ],
      },
    };
    const merged = mergeAppliedConfiguration(pod(), applied) as unknown as { spec: { containers: { ports: unknown[] }[] } };
    expect(merged.spec.containers[0].ports).toEqual([
      { containerPort: 8080, protocol: 'TCP', name: 'web' },
      { containerPort: 8080, protocol: 'UDP', name: 'udp' },
    ]);
    const patched = applyStrategicMergePatch(pod(), applied) as unknown as { spec: { containers: { ports: unknown[] }[] } };
    expect(patched.spec.containers[0].ports).toEqual([
      { containerPort: 8080, protocol: 'UDP', name: 'udp' },
      { containerPort: 8080, protocol: 'UDP' },
    ]); // by containerPort alone, as a real strategic merge patch
  });
});
