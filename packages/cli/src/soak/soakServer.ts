/**
 * The server of one soak run, whichever it is: the simulator (in process, its own faults), or a real
 * kube-apiserver and etcd from `@rxinformer/envtest` behind our fault proxy. Either way: a KubeConfig
 * for the clients under test, a churn target writing straight to the server, the server's pods,
 * and the run's faults.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { httpChurnTarget, objectStoreTarget, startApiServer, type ChurnTarget } from '@rxinformer/apiserver-sim';
import { identities, type IdentityMap } from './convergence.ts';
import { clearFaults, planFaults } from './faultPlan.ts';
import { runFaultPlan, type AppliedFault } from './faultSchedule.ts';
import { planRealFaults } from './realFaultPlan.ts';

/** Which server a soak runs against. */
export type ServerKind = 'sim' | 'real';

/** A started server of one run. */
export interface SoakServer {
  readonly kind: ServerKind;
  /** How long the server took to start, in ms. */
  readonly startMs: number;
  /** A KubeConfig for the clients under test: the simulator's own, or the real server's through the fault proxy. */
  kubeConfig(): KubeConfig;
  /** Where the load generator writes: straight to the server, never through the faults. */
  readonly target: ChurnTarget;
  /** Creates namespaces. */
  createNamespaces(names: readonly string[]): Promise<void>;
  /** The identities of every pod now: the simulator's store, or a consistent list from the real server. */
  pods(): Promise<IdentityMap>;
  /** The run's faults over `durationMs`, planned from `seed`; emits each action once applied. */
  faults(seed: number, durationMs: number): Observable<AppliedFault>;
  /** Ends every fault (an apiserver restart in progress has ended before: its step waits for it). */
  clearFaults(): void;
  /** Stops the server (and its proxy). */
  close(): Promise<void>;
}

/** The token of the simulator's clients (the 401 faults rotate it away and back). */
const TOKEN = 'soak-token';

/**
 * Starts the server of a run: the simulator seeded with `seed`, or a real environment with the
 * fault proxy in front.
 *
 * @example
 * const server = await startSoakServer('real', 1);
 * await server.createNamespaces(['soak-0']);
 * await server.close();
 */
export async function startSoakServer(kind: ServerKind, seed: number): Promise<SoakServer> {
  return kind === 'sim' ? startSim(seed) : startReal();
}

async function startSim(seed: number): Promise<SoakServer> {
  const t0 = performance.now();
  const sim = await startApiServer({ port: 0, seed, auth: { token: TOKEN }, bookmarkIntervalMs: 1000 });
  const startMs = Math.round(performance.now() - t0);
  return {
    kind: 'sim',
    startMs,
    kubeConfig: () => {
      const kc = new KubeConfig();
      kc.loadFromString(sim.kubeconfigYaml());
      return kc;
    },
    target: objectStoreTarget(sim.storage),
    createNamespaces: (names) => {
      for (const name of names) sim.storage.create('namespaces', { metadata: { name } });
      return Promise.resolve();
    },
    pods: () => Promise.resolve(identities(sim.storage.list('pods'))),
    faults: (s, durationMs) => runFaultPlan(sim, planFaults({ seed: s, durationMs, token: TOKEN })),
    clearFaults: () => clearFaults(sim, TOKEN),
    close: () => sim.close(),
  };
}

async function startReal(): Promise<SoakServer> {
  // Loaded only here: the simulator's soak (and `soak --help`) never needs it.
  const { startFaultProxy, startTestEnvironment } = await import('@rxinformer/envtest');
  const t0 = performance.now();
  const env = await startTestEnvironment();
  const startMs = Math.round(performance.now() - t0);
  try {
    const proxy = await startFaultProxy({ target: env.url, targetCa: env.ca, tls: env.servingCertificate() });
    const target = httpChurnTarget({ url: env.url, token: env.token, ca: env.ca });
    return {
      kind: 'real',
      startMs,
      kubeConfig: () => throughProxy(env.kubeConfig(), proxy.url),
      target,
      createNamespaces: async (names) => {
        for (const name of names) await target.createNamespace(name);
      },
      pods: async () => identities(await target.list()),
      faults: (seed, durationMs) => runFaultPlan({ env, proxy }, planRealFaults({ seed, durationMs })),
      clearFaults: () => proxy.clear(),
      close: async () => {
        await target.close();
        await proxy.close();
        await env.stop();
      },
    };
  } catch (error) {
    await env.stop();
    throw error;
  }
}

/** `kc` with its cluster's server replaced by `server` (same CA, same user). */
function throughProxy(kc: KubeConfig, server: string): KubeConfig {
  const proxied = new KubeConfig();
  proxied.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return proxied;
}
