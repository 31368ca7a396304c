import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { Subject } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { controllerRuntimeMetrics, type ObservedReconciler, type ReconcileCounts } from './controllerRuntimeMetrics.ts';
import { MetricConflictError } from './errors.ts';

/** A controller's counts, its reconciles and its sources, as `@rxinformer/controller`'s controller gives them. */
function observed(name: string) {
  const counts: ReconcileCounts = {
    total: { success: 5, error: 3, requeue: 1, requeue_after: 2 },
    errors: 3,
    terminalErrors: 1,
    panics: 1,
    timeouts: 1,
    activeWorkers: 2,
    maxConcurrentReconciles: 4,
    staleSyncSkips: 7,
  };
  const reconciles$ = new Subject<{ seconds: number }>();
  const informer = { lastSyncResourceVersion: '1234' as string | undefined };
  const controller: ObservedReconciler = {
    name,
    reconcileStats: () => counts,
    reconciles$,
    sourceInformers: () => [
      { group: '', version: 'v1', resource: 'configmaps', informer },
      { group: 'apps', version: 'v1', resource: 'deployments', informer: { lastSyncResourceVersion: 'opaque' } },
    ],
  };
  return { controller, counts, reconciles$, informer };
}

describe('controllerRuntimeMetrics', () => {
  it("should expose controller-runtime's reconcile metrics and the staleness ones under the controller's name", async () => {
    const registry = new Registry();
    const { controller, reconciles$, informer } = observed('replicator');
    const metrics = controllerRuntimeMetrics(controller, { registry });
    reconciles$.next({ seconds: 0.003 });
    reconciles$.next({ seconds: 2 });
    const samples = parseExposition(await registry.metrics());
    const c = { controller: 'replicator' };
    expect(
      ['success', 'error', 'requeue', 'requeue_after'].map((result) =>
        sampleValue(samples, 'controller_runtime_reconcile_total', { ...c, result }),
      ),
    ).toEqual([5, 3, 1, 2]);
    expect(
      [
        'controller_runtime_reconcile_errors_total',
        'controller_runtime_terminal_reconcile_errors_total',
        'controller_runtime_reconcile_panics_total',
        'controller_runtime_reconcile_timeouts_total',
        'controller_runtime_active_workers',
        'controller_runtime_max_concurrent_reconciles',
        'stale_sync_skips_total',
      ].map((m) => sampleValue(samples, m, c)),
    ).toEqual([3, 1, 1, 1, 2, 4, 7]);
    expect(sampleValue(samples, 'controller_runtime_reconcile_time_seconds_count', c)).toBe(2);
    expect(sampleValue(samples, 'controller_runtime_reconcile_time_seconds_bucket', { ...c, le: '0.005' })).toBe(1);
    expect(sampleValue(samples, 'store_resource_version', { ...c, group: '', version: 'v1', resource: 'configmaps' })).toBe(1234);
    expect(hasSample(samples, 'store_resource_version', { ...c, group: 'apps', version: 'v1', resource: 'deployments' })).toBe(false); // opaque
    informer.lastSyncResourceVersion = '1300';
    expect(
      sampleValue(parseExposition(await registry.metrics()), 'store_resource_version', {
        ...c,
        group: '',
        version: 'v1',
        resource: 'configmaps',
      }),
    ).toBe(1300);
    metrics.unregister();
    metrics.unregister();
    const after = parseExposition(await registry.metrics());
    expect(hasSample(after, 'controller_runtime_reconcile_errors_total', c)).toBe(false);
    expect(hasSample(after, 'controller_runtime_reconcile_time_seconds_count', c)).toBe(false);
    expect(reconciles$.observed).toBe(false);
  });

  it('should refuse what is not a controller, and a name already registered', () => {
    const registry = new Registry();
    expect(() => controllerRuntimeMetrics({ name: 'x' } as never, { registry })).toThrow(InvalidOptionsError);
    controllerRuntimeMetrics(observed('x').controller, { registry });
    expect(() => controllerRuntimeMetrics(observed('x').controller, { registry })).toThrow(MetricConflictError);
  });
});
