/** Finalizers and owner references against the simulator and a real kube-apiserver, through fetch. */
import { describe, expect, it } from '@jest/globals';
import { serverKinds } from '@rxinformer/testing/servers';
import { finalizer, isNotFound, ownerKey, setControllerReference } from '../src/index.ts';
import { serverSuite, type ConfigMap } from './kit.ts';

describe.each(serverKinds())('controller helpers against the %s server', (kind) => {
  const s = serverSuite(kind, 'helpers');
  const { cm } = s;

  it('should add the finalizer before apply, and on deletion run cleanup then release the object', async () => {
    const name = 'example.com/cleanup';
    const log: string[] = [];
    const handlers = {
      apply: (o: ConfigMap) => void log.push(`apply ${String(o.metadata!.finalizers)}`),
      cleanup: (o: ConfigMap) => void log.push(`cleanup ${o.metadata!.deletionTimestamp ? 'deleting' : 'live'}`),
    };
    const created = await s.cms.create(cm('fin'));
    const first = await finalizer(s.cms, name, created, handlers);
    expect(first).toMatchObject({ event: 'apply', object: { metadata: { finalizers: [name] } } });
    const again = await finalizer(s.cms, name, first.object, handlers);
    expect(again.object).toBe(first.object); // nothing written: the finalizer is there
    await s.cms.delete({ namespace: s.ns, name: 'fin' });
    const deleting = await s.cms.get({ namespace: s.ns, name: 'fin' });
    expect(deleting.metadata!.deletionTimestamp).toBeDefined();
    expect(await finalizer(s.cms, name, deleting, handlers)).toMatchObject({ event: 'cleanup' });
    expect(log).toEqual([`apply ${name}`, `apply ${name}`, 'cleanup deleting']);
    expect(isNotFound(await s.cms.get({ namespace: s.ns, name: 'fin' }).catch((e: unknown) => e))).toBe(true);
    await expect(finalizer(s.cms, 'no-domain', created, handlers)).rejects.toThrow(/qualified/);
  });

  it('should write a controller owner reference the server accepts, and key the owned object to its owner', async () => {
    const owner = await s.cms.create(cm('owner'));
    const { object } = await s.cms.createOrUpdate(cm('owned'), (d) => void setControllerReference(owner, d));
    expect(object.metadata!.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(ownerKey(object, { kind: 'ConfigMap', apiVersion: 'v1' })).toBe(`${s.ns}/owner`);
    // Set again: unchanged, nothing to write.
    expect((await s.cms.createOrUpdate(cm('owned'), (d) => void setControllerReference(owner, d))).result).toBe('unchanged');
  });
});
