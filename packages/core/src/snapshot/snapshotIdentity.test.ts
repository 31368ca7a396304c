import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors.ts';
import { isSecrets, snapshotIdentity, snapshotKey } from './snapshotIdentity.ts';
import { projected } from '../projection/index.ts';
import { tableRows } from '../tableRow.ts';

const deployments = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
const base = { server: 'https://a:6443', resource: deployments };

describe('snapshotIdentity and snapshotKey', () => {
  it('should give a stable key made of the resource and 64 bits of hash, usable as a file name', () => {
    const key = snapshotKey(snapshotIdentity(base));
    expect(key).toMatch(/^deployments\.apps-[0-9a-f]{16}$/);
    expect(snapshotKey(snapshotIdentity(base))).toBe(key);
  });

  it('should give another key for another server, scope or transform', () => {
    const keys = [
      snapshotIdentity(base),
      snapshotIdentity({ ...base, server: 'https://b:6443' }),
      snapshotIdentity({ ...base, scope: { namespace: 'web' } }),
      snapshotIdentity({ ...base, scope: { fieldSelector: 'metadata.name=x' } }),
      snapshotIdentity({ ...base, transform: (o: never) => o }),
      snapshotIdentity({ ...base, transformId: 'v2' }),
      snapshotIdentity({ ...base, resource: { ...deployments, metadataOnly: true } }),
    ].map(snapshotKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('should name a transform by its source unless given an id, and ignore the namespace of a cluster-scoped resource', () => {
    const a = snapshotIdentity({ ...base, transform: (o: { metadata?: object }) => ({ ...o, metadata: {} }) });
    const b = snapshotIdentity({ ...base, transform: (o: { metadata?: object }) => ({ ...o, metadata: {} }) });
    expect(a.transform).toMatch(/^source:[0-9a-f]{8}$/);
    expect(a.transform).toBe(b.transform);
    expect(snapshotIdentity({ ...base, transform: (o: never) => o, transformId: 'mine' }).transform).toBe('mine');
    const nodes = { group: '', version: 'v1', resource: 'nodes', namespaced: false };
    expect(snapshotIdentity({ server: 's', resource: nodes, scope: { namespace: 'x' } }).namespace).toBe('');
  });

  it('should tell apart Table rows and projections of other paths, which a factory composes with the transform', () => {
    const ready = projected(deployments, ['status.readyReplicas']);
    const identities = [
      snapshotIdentity(base),
      snapshotIdentity({ ...base, resource: tableRows(deployments) }),
      snapshotIdentity({ ...base, resource: ready }),
      snapshotIdentity({ ...base, resource: projected(deployments, ['status.replicas']) }),
      snapshotIdentity({ ...base, resource: ready, transformId: 'v2' }),
    ];
    expect(new Set(identities.map(snapshotKey)).size).toBe(identities.length);
    expect(identities[2].transform).toBe(`projection:${ready.projection!.key}`);
    expect(identities[4].transform).toBe(`projection:${ready.projection!.key} then v2`);
    // The same paths: the same identity, so a restart finds its snapshot.
    expect(snapshotKey(snapshotIdentity({ ...base, resource: projected(deployments, ['status.readyReplicas']) }))).toBe(
      snapshotKey(identities[2]),
    );
  });

  it('should need a server, and know Secrets', () => {
    expect(() => snapshotIdentity({ ...base, server: '' })).toThrow(InvalidOptionsError);
    expect(
      isSecrets(snapshotIdentity({ server: 's', resource: { group: '', version: 'v1', resource: 'secrets', namespaced: true } })),
    ).toBe(true);
    expect(
      isSecrets(snapshotIdentity({ server: 's', resource: { group: 'x.io', version: 'v1', resource: 'secrets', namespaced: true } })),
    ).toBe(false);
  });
});
