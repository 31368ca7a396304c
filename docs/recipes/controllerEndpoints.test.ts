import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { serveControllerEndpoints, type ControllerEndpoints } from './controllerEndpoints.ts';
import { startPodLabeler, type PodLabeler } from './podLabeler.ts';
import { until } from '@rxinformer/testing';

/** `name{labels} value` lines of a Prometheus text exposition, by series. */
function series(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('serveControllerEndpoints', () => {
  let sim: ApiServer;
  let labeler: PodLabeler | undefined;
  let endpoints: ControllerEndpoints | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 12 });
    sim.storage.create('namespaces', { metadata: { name: 'shop' } });
    for (const name of ['a', 'b', 'c'])
      sim.storage.create('pods', { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } }, 'shop');
  });
  afterAll(async () => {
    await endpoints?.close();
    await labeler?.stop();
    await sim.close();
  });

  it("should serve readiness once synced, health, and the informer's and the queue's metrics", async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    labeler = startPodLabeler(kc, { namespace: 'shop' });
    endpoints = await serveControllerEndpoints({
      informers: { 'v1/pods': labeler.pods },
      queue: { queue: labeler.run.queue, name: 'pod-labeler' },
    });
    const get = async (path: string) => {
      const r = await fetch(endpoints!.url + path);
      return { status: r.status, body: await r.text() };
    };
    await firstValueFrom(labeler.pods.synced$.pipe(filter(Boolean), timeout(15_000)));
    expect(await get('/readyz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get('/healthz')).toEqual({ status: 200, body: 'ok\n' });
    const { controller } = labeler;
    await until(() => controller.reconcileStats().total.success >= 3 && controller.reconcileStats().activeWorkers === 0, {
      timeoutMs: 15_000,
    });
    const metrics = series((await get('/metrics')).body);
    expect(metrics.get('rxinformer_informer_objects{informer="v1/pods"}')).toBe(3);
    expect(metrics.get('rxinformer_informer_synced{informer="v1/pods"}')).toBe(1);
    expect(metrics.get('workqueue_adds_total{name="pod-labeler"}')).toBeGreaterThanOrEqual(3);
    expect(metrics.get('workqueue_work_duration_seconds_count{name="pod-labeler"}')).toBeGreaterThanOrEqual(3);
    expect(metrics.get('workqueue_depth{name="pod-labeler"}')).toBe(0);
    expect(metrics.has('process_cpu_user_seconds_total')).toBe(true);
  });

  it('should be ready only while leading, when told to check', async () => {
    let leading = false;
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const follower = startPodLabeler(kc, { namespace: 'shop' });
    const served = await serveControllerEndpoints({ informers: { 'v1/pods': follower.pods }, isLeader: () => leading });
    try {
      await firstValueFrom(follower.pods.synced$.pipe(filter(Boolean), timeout(15_000)));
      const readyz = async () => (await fetch(`${served.url}/readyz`)).text();
      expect(await readyz()).toBe('[+]informer v1/pods ok\n[-]leading failed: check failed\nreadyz check failed\n');
      leading = true;
      expect(await readyz()).toBe('ok\n');
    } finally {
      await served.close();
      await follower.stop();
    }
  });
});
