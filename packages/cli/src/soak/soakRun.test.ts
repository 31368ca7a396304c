import { describe, expect, it } from '@jest/globals';
import { rxinformerClient } from './rxinformerClient.ts';
import type { SoakClient } from './soakClient.ts';
import { soakRun } from './soakRun.ts';

// Short watches and backoff so a stalled watch and a backoff end within a test's seconds.
const reflector = { minWatchTimeoutSeconds: 1, idleGraceMs: 500, backoff: { initialMs: 50, maxMs: 500, resetAfterMs: 2000 } };

describe('soakRun', () => {
  it('should see rxinformer converge after churn and every fault, with recreations as delete + add', async () => {
    const result = await soakRun((kc) => rxinformerClient(kc, { reflector }), {
      seed: 11,
      objects: 200,
      namespaces: 3,
      chaosMs: 3000,
      churnPerSecond: 150,
      convergeTimeoutMs: 20_000,
      pollMs: 50,
    });
    expect(result.failure).toBeUndefined();
    expect(result.converged).toBe(true);
    expect(result.uidViolations).toBe(0);
    expect(result.churn.recreated).toBeGreaterThan(0); // there were UID changes to get right
    expect(result.churn.deleted).toBeGreaterThan(0);
    expect(Object.keys(result.faults).length).toBe(15); // every kind of fault was applied
    expect(result.stats.errorsSeen).toBeGreaterThan(0);
    expect(result.stats.handlerErrors).toBe(0);
    expect(result.handlerEvents).toBeGreaterThan(3 * 200);
  });

  it('should not pass a client whose view is wrong: a store missing one object never converges', async () => {
    const wrong = (client: SoakClient): SoakClient => ({
      ...client,
      library: client.library,
      views: client.views,
      start: () => client.start(),
      stats: () => client.stats(),
      close: () => client.close(),
      store: () => {
        const store = client.store();
        store.delete([...store.keys()].sort()[0]); // loses one object
        return store;
      },
    });
    const result = await soakRun((kc) => wrong(rxinformerClient(kc, { reflector })), {
      seed: 12,
      objects: 50,
      namespaces: 2,
      chaosMs: 200,
      churnPerSecond: 50,
      syncTimeoutMs: 1500,
      convergeTimeoutMs: 1000,
      pollMs: 50,
    });
    expect(result.converged).toBe(false);
    expect(result.failure).toMatch(/store: 1 missing \(missing soak-\d\/\S+\)/);
  });
});
