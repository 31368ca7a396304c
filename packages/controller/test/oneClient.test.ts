/**
 * One write path: a manager given one client runs its leader election, its event recorders and
 * the `req.api` of the controllers built on it through that client — over real HTTP to the
 * simulator (the servers do not differ in which client sends what).
 */
import { describe, expect, it } from '@jest/globals';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { createInformerFactory, fetchListerWatcher, InvalidOptionsError } from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { controllerFor, createManager, refOf, type Logger } from '../src/index.ts';
import { configMaps, counting, serverSuite } from './kit.ts';

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined };

describe('a manager of one client, on the simulator', () => {
  const suite = serverSuite('sim', 'one-client');
  const factoryOf = () =>
    createInformerFactory(
      (resource, scope) => fetchListerWatcher({ ...suite.server.fetchOptions(), resource, namespace: scope.namespace }),
      {
        namespace: suite.ns,
      },
    );

  it("should write the Lease, the reconcile's writes and the Events through the client it was given", async () => {
    const client = counting(suite.client);
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 };
    const leaderElection = { namespace: suite.ns, name: 'one-client', identity: 'replica-a', ...timing };
    const deadlines: Subscription[] = []; // the shutdown deadline's timers
    const scheduler: SchedulerLike = {
      now: () => asyncScheduler.now(),
      schedule: (...args: Parameters<SchedulerLike['schedule']>) => {
        const timer = asyncScheduler.schedule(...(args as [never]));
        deadlines.push(timer);
        return timer;
      },
    };
    const mgr = createManager({ factory: factoryOf(), client, leaderElection, logger: quiet, scheduler });
    const events = mgr.eventRecorder({ reportingController: 'example.com/one-client' });
    let marked = false;
    const ctl = controllerFor(mgr, configMaps, { name: 'marker' }).reconcile(async ({ object, api }) => {
      if (object === undefined || object.data?.seen === 'yes') return;
      events.event(await api(configMaps).mergePatch(refOf(object), { data: { seen: 'yes' } }), {
        type: 'Normal',
        reason: 'Marked',
        action: 'Mark',
      });
      marked = true;
    });
    expect(mgr.runnables()).toEqual([ctl]); // built on the manager: added to it
    await suite.cms.create(suite.cm('x'));
    await mgr.start();
    await until(() => marked, { timeoutMs: 30_000 });
    await mgr.stop(); // flushes the recorder, then releases the Lease
    expect(deadlines.length).toBe(1);
    expect(deadlines[0].closed).toBe(true); // cancelled once the term stopped: it would hold the process 30 s

    const sent = client.sent.map((r) => `${r.method} ${r.path}`);
    const ns = `/namespaces/${suite.ns}`;
    expect(sent).toContain(`POST /apis/coordination.k8s.io/v1${ns}/leases`); // acquired
    expect(sent).toContain(`PATCH /api/v1${ns}/configmaps/x`); // req.api
    expect(sent.some((s) => s.startsWith(`POST /apis/events.k8s.io/v1${ns}/events`) || s.startsWith(`POST /api/v1${ns}/events`))).toBe(
      true,
    );
    expect(sent.at(-1)).toBe(`PUT /apis/coordination.k8s.io/v1${ns}/leases/one-client`); // released last
    const lease = await client.request<{ spec: { holderIdentity?: string } }>({
      method: 'GET',
      path: `/apis/coordination.k8s.io/v1${ns}/leases/one-client`,
    });
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });

  it('should refuse election options and event recorders without a client', () => {
    const factory = factoryOf();
    const options = { namespace: 'default', name: 'x', identity: 'a' };
    expect(() => createManager({ factory, leaderElection: options })).toThrow(InvalidOptionsError);
    expect(() => createManager({ factory }).eventRecorder({ reportingController: 'c', reportingInstance: 'i' })).toThrow(/has no client/);
    expect(() => createManager({ factory, client: {} as never })).toThrow(/client must be an ApiClient/);
  });
});
