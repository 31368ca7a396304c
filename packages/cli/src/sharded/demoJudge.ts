/**
 * The sharded demo's judge: it watches the demo namespace's ConfigMaps (the reconcile marks and
 * the leader's heartbeats) and Leases (who held which when) through the API, as `writeWatch.ts`
 * describes, on whatever server the demo runs against.
 */
import { fetchListerWatcher } from '@rxinformer/core';
import { pathSegment } from '@rxinformer/core/http';
import type { DemoServer } from './demoServer.ts';
import { LeaseTerms, watchWrites, type SeenWrite } from './writeWatch.ts';

/** The demo's view of the writes. */
export interface DemoJudge {
  /** Resolves once both watches run. */
  readonly ready: Promise<void>;
  /** Calls `listener` for every ConfigMap write from now on; returns its removal. */
  onConfigMap(listener: (write: SeenWrite) => void): () => void;
  /** Who held each Lease from which write on. */
  readonly leases: LeaseTerms;
  /** The largest resource version seen. */
  readonly lastRv: number;
  /** Set when a watch lost writes: the figures cannot be trusted. */
  readonly failure: Error | undefined;
  stop(): void;
}

/** Starts watching the demo namespace of `server`. */
export function startJudge(server: DemoServer): DemoJudge {
  const http = { baseUrl: server.access.url, headers: server.access.headers, fetch: server.access.fetch };
  const ns = pathSegment('namespace', server.namespace);
  const listeners = new Set<(write: SeenWrite) => void>();
  const leases = new LeaseTerms();
  const configMaps = watchWrites(fetchListerWatcher({ ...http, path: `/api/v1/namespaces/${ns}/configmaps` }), (w) => {
    for (const l of listeners) l(w);
  });
  const leaseWatch = watchWrites(fetchListerWatcher({ ...http, path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases` }), (w) =>
    leases.record(w),
  );
  return {
    ready: Promise.all([configMaps.ready, leaseWatch.ready]).then(() => undefined),
    onConfigMap: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    leases,
    get lastRv() {
      return Math.max(configMaps.lastRv, leaseWatch.lastRv);
    },
    get failure() {
      return configMaps.failure ?? leaseWatch.failure;
    },
    stop: () => {
      configMaps.stop();
      leaseWatch.stop();
    },
  };
}
