import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { createDiscovery, createKubeTransport, deployments, nodes, pods, type KubeTransport } from '@rxinformer/client-node';
import { LiveOptionsError } from './liveOptions.ts';
import { builtinResource, resolveLiveResource } from './liveResource.ts';

describe('builtinResource', () => {
  it('should find built-ins by plural, plural.group and kind, core group first', () => {
    expect(builtinResource('pods')).toBe(pods);
    expect(builtinResource('pod')).toBe(pods);
    expect(builtinResource('deployments.apps')).toBe(deployments);
    expect(builtinResource('Nodes')).toBe(nodes);
    expect(builtinResource('events')?.group).toBe('');
    expect(builtinResource('widgets')).toBeUndefined();
  });
});

describe('resolveLiveResource', () => {
  let sim: ApiServer;
  let transport: KubeTransport;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    transport = createKubeTransport(kc);
  });
  afterAll(async () => {
    await transport.close();
    await sim.close();
  });

  it('should resolve group/version/resource and version/resource through discovery over HTTP', async () => {
    const discovery = createDiscovery(transport);
    expect(await resolveLiveResource('apps/v1/deployments', discovery)).toMatchObject({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
    });
    expect(await resolveLiveResource('v1/nodes', discovery)).toMatchObject({ group: '', resource: 'nodes', namespaced: false });
  });

  it('should answer LiveOptionsError for unknown built-ins and resources the server lacks', async () => {
    const discovery = createDiscovery(transport);
    await expect(resolveLiveResource('widgets', discovery)).rejects.toThrow(/unknown resource "widgets": use one of pods, services/);
    await expect(resolveLiveResource('example.com/v1/widgets', discovery)).rejects.toBeInstanceOf(LiveOptionsError);
    await expect(resolveLiveResource('v1/widgets', discovery)).rejects.toThrow(/no resource v1 widgets/);
  });
});
