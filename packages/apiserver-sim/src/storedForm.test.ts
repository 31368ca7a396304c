import { describe, expect, it } from '@jest/globals';
import { toStoredForm } from './storedForm.ts';

describe('toStoredForm', () => {
  it('should drop the zero scalars and empty maps of omitempty fields, keep pointers and required fields, at any depth', () => {
    const pod: Record<string, unknown> = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: {}, generateName: '' },
      spec: {
        hostNetwork: false,
        terminationGracePeriodSeconds: 0, // a pointer: kept
        nodeSelector: {},
        containers: [
          {
            name: 'c',
            image: '',
            ports: [{ containerPort: 0, hostPort: 0 }],
            volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false }],
            resources: {},
          },
        ],
      },
    };
    toStoredForm(pod, 'v1', 'Pod');
    expect(pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'c', ports: [{ containerPort: 0 }], volumeMounts: [{ name: 'v', mountPath: '/v' }], resources: {} }],
      },
    });
  });

  it('should keep podIP and podIPs (and hostIP, hostIPs) in step, the single one winning', () => {
    const status = (s: Record<string, unknown>) => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: s };
      toStoredForm(pod, 'v1', 'Pod');
      return pod.status;
    };
    expect(status({ podIP: '10.0.0.1' })).toEqual({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] });
    expect(status({ podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }] })).toEqual({
      podIP: '10.0.0.2',
      podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }],
    });
    expect(status({ podIP: '10.0.0.3', podIPs: [{ ip: '10.0.0.4' }] })).toEqual({ podIP: '10.0.0.3', podIPs: [{ ip: '10.0.0.3' }] });
    expect(status({ hostIP: '10.1.0.1' })).toEqual({ hostIP: '10.1.0.1', hostIPs: [{ ip: '10.1.0.1' }] });
  });

  it('should leave kinds it has no schema of as they are', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: {} }, spec: { on: false } };
    toStoredForm(widget, 'example.com/v1', 'Widget');
    expect(widget).toEqual({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: {} }, spec: { on: false } });
  });
});
