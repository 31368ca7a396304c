import { describe, expect, it } from '@jest/globals';
import { serverKinds } from '@rxinformer/testing/servers';
import { REAL_FAULT_KINDS } from './realFaultPlan.ts';
import { rxinformerClient } from './rxinformerClient.ts';
import { soakRun } from './soakRun.ts';

// Short watches and backoff so a stalled watch and a backoff end within a test's seconds.
const reflector = { minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 50, maxMs: 500, resetAfterMs: 2000 } };

// One short `soak --server real` run end to end: kube-apiserver and etcd (@rxinformer/envtest),
// pods churned through the API, every fault of a real server (the fault proxy's, etcd compacted,
// kube-apiserver killed with SIGKILL and started again), convergence judged against a fresh
// consistent list. `RXINFORMER_SERVERS=sim` skips it.
describe('soakRun against a real kube-apiserver', () => {
  const real = serverKinds().includes('real') ? it : it.skip;

  real(
    'should see rxinformer converge after churn and every fault, with recreations as delete + add',
    async () => {
      const result = await soakRun((kc) => rxinformerClient(kc, { reflector }), {
        seed: 21,
        server: 'real',
        objects: 150,
        namespaces: 2,
        chaosMs: 12_000,
        churnPerSecond: 30,
        syncTimeoutMs: 60_000,
        convergeTimeoutMs: 60_000,
      });
      expect(result.failure).toBeUndefined();
      expect(result.converged).toBe(true);
      expect(result.uidViolations).toBe(0);
      expect(result.server).toBe('real');
      expect(Object.keys(result.faults).sort()).toEqual([...REAL_FAULT_KINDS].sort()); // every kind was applied
      expect(result.faults.killApiServer.applied).toBeGreaterThanOrEqual(1);
      expect(result.churn.recreated).toBeGreaterThan(0); // there were UID changes to get right
      expect(result.churn.deleted).toBeGreaterThan(0);
      expect(result.serverObjects).toBeGreaterThan(0);
      expect(result.stats.errorsSeen).toBeGreaterThan(0);
      expect(result.stats.handlerErrors).toBe(0);
    },
    300_000,
  );
});
