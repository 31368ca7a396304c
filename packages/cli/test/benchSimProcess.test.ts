import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeTransport } from '@rxinformer/client-node';
import type { ListPage } from '@rxinformer/core';
import { startSimProcess } from '../bench/simProcess.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startSimProcess', () => {
  it('should seed and update pods in the child, keep the updates for replay, and be gone after close', async () => {
    const sim = await startSimProcess({ historyEvents: 100, maxOldSpaceMiB: 256 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig);
    const transport = createKubeTransport(kc);
    try {
      const seeded = await sim.send({ cmd: 'seed', count: 5 });
      expect(seeded.pods).toBe(5);
      const updated = await sim.send({ cmd: 'update', count: 7 });
      expect(Number(updated.resourceVersion) - Number(seeded.resourceVersion)).toBe(7);
      const list = await transport.getJson<ListPage>(`/api/v1/pods?resourceVersion=${seeded.resourceVersion}&resourceVersionMatch=Exact`);
      expect(list.items).toHaveLength(5);
      expect(list.metadata?.resourceVersion).toBe(seeded.resourceVersion);
      expect(JSON.stringify(list.items[0]).length).toBeGreaterThan(3000); // realistic pods
      await expect(sim.send({ cmd: 'nope' } as never)).rejects.toThrow(/unknown command/);
    } finally {
      await transport.close();
      await sim.close();
    }
    expect(alive(sim.pid)).toBe(false);
    await expect(sim.send({ cmd: 'state' })).rejects.toThrow();
  });
});
