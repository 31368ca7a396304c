/**
 * Probes of the timer options of client-node, controller, prometheus and envtest.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  createDiscovery,
  createKubeInformerFactory,
  createKubeTransport,
  kubeconfigFolderProvider,
  type KubeTransport,
} from '@rxinformer/client-node';
import { controllerFor, createEventRecorder, retryOnConflict, type ApiRequest } from '@rxinformer/controller';
import { createInformerFactory, KubeApiError, type KubeObject } from '@rxinformer/core';
import { startFaultProxy, startTestEnvironment } from '@rxinformer/envtest';
import { createProbes } from '@rxinformer/prometheus';
import { fakeListerWatcher, page, testObject } from '@rxinformer/testing';
import { NEVER, of } from 'rxjs';
import { failingInformer, pods, silentInformer } from './coreProbes.ts';
import { advance, eventually, realDelay, settledFlag, type Probe } from './probe.ts';

/** A transport whose every GET waits until its signal aborts. */
function silentTransport(): KubeTransport {
  const getJson = (_path: string, signal?: AbortSignal) =>
    new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  return { getJson, close: async () => {} } as unknown as KubeTransport;
}

const kubeConfig = (user: { name: string; exec?: unknown } = { name: 'u' }): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
    users: [user],
    contexts: [{ name: 'x', cluster: 'c', user: user.name }],
    currentContext: 'x',
  });
  return kc;
};

/** A discovery lookup on a server that never answers: fired when it gives up. */
export const discoveryTimeout =
  (via: 'createDiscovery' | 'factory'): Probe =>
  (timeoutMs) => {
    const transport = silentTransport();
    const discovery =
      via === 'createDiscovery'
        ? createDiscovery(transport, { timeoutMs })
        : createKubeInformerFactory(kubeConfig(), { transport, discoveryTimeoutMs: timeoutMs }).discovery;
    const looked = discovery.resolve({ apiVersion: 'v1', kind: 'Pod' });
    looked.catch(() => {});
    return { fired: settledFlag(looked), stop: () => {} };
  };

/** A folder provider whose folder gets a kubeconfig file: fired when its cluster joins, the folder quiet for the debounce. */
export const folderDebounce: Probe = async (debounceMs) => {
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-probe-'));
  try {
    const provider = kubeconfigFolderProvider(dir, { debounceMs });
    let joined = false;
    const subscription = provider.clusters$.subscribe((e) => void (joined ||= e.type === 'join'));
    writeFileSync(join(dir, 'a.yaml'), kubeConfig().exportConfig());
    await realDelay(300); // fs.watch's events come on real I/O: the debounce starts at fake time 0
    return {
      fired: () => joined,
      stop: () => {
        subscription.unsubscribe();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
};

/** A request whose credentials come from an exec plugin that never answers: fired when the plugin is killed. */
export const execTimeout: Probe = (execTimeoutMs) => {
  const exec = {
    apiVersion: 'client.authentication.k8s.io/v1',
    command: process.execPath,
    args: ['-e', 'setInterval(() => {}, 1000)'],
    interactiveMode: 'Never',
  };
  const transport = createKubeTransport(kubeConfig({ name: 'plugin', exec }), { execTimeoutMs });
  const sent = transport.getJson('/version');
  sent.catch(() => {});
  const settled = settledFlag(sent);
  // The refusal comes once the killed process has closed: real I/O. `close()` waits for the
  // credential being read: stop lets the time limit pass first.
  const stop = async () => {
    await advance(execTimeoutMs);
    await transport.close();
  };
  return { fired: () => eventually(settled, 5000), stop };
};

/** A controller of one listed object whose reconcile answers `{ requeueAfterMs }` once: fired at the second reconcile. */
export const builderRequeueAfter: Probe = async (requeueAfterMs) => {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([testObject('a', '1')], '1')));
  lw.scriptWatch(NEVER);
  const factory = createInformerFactory(() => lw as never);
  let reconciles = 0;
  const errors: unknown[] = [];
  const ctl = controllerFor(factory, pods, { name: 'probe', onError: ({ error }) => errors.push(error) }).reconcile(async () =>
    reconciles++ === 0 ? { requeueAfterMs } : undefined,
  );
  const run = ctl.start();
  const stop = async () => {
    await run.stop();
    factory.shutdown();
  };
  await eventually(() => reconciles > 0 || errors.length > 0);
  if (errors.length > 0) {
    await stop();
    throw errors[0];
  }
  return { fired: () => eventually(() => reconciles > 1, 1000), stop };
};

/** A controller built with one option (refused or not: nothing runs). */
export const builderOption =
  (option: 'debounceMs' | 'readYourWrites.timeoutMs' | 'reconcileTimeoutMs' | 'logThrottleMs'): Probe =>
  (ms) => {
    const factory = createInformerFactory(() => fakeListerWatcher());
    try {
      const o = option === 'readYourWrites.timeoutMs' ? { readYourWrites: { timeoutMs: ms } } : { [option]: ms };
      controllerFor(factory, pods, { name: 'probe', ...o }).reconcile(async () => undefined);
    } finally {
      factory.shutdown();
    }
    return { fired: () => false, stop: () => {} };
  };

/** A recorder writing to a client that answers every request; the requests are kept. */
function recorder(options: { seriesRefreshMs?: number; seriesWindowMs?: number; refillMs?: number; burst?: number }) {
  const requests: ApiRequest[] = [];
  const client = {
    request: async <T>(req: ApiRequest): Promise<T> => {
      requests.push(req);
      return {} as T;
    },
  };
  const r = createEventRecorder({ client, reportingController: 'example.com/probe', reportingInstance: 'probe', api: 'v1', ...options });
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', uid: 'u1' } };
  return { r, requests, event: (reason = 'Probed') => r.event(object, { type: 'Normal', reason, action: 'Probe', note: 'probe' }) };
}

/** Three occurrences of one event: the third is written (a PATCH) at the next series refresh. */
export const seriesRefresh: Probe = (seriesRefreshMs) => {
  const { r, requests, event } = recorder({ seriesRefreshMs, seriesWindowMs: 2 ** 53 });
  event();
  event(); // written at once
  event(); // waits for the refresh
  const patches = () => requests.filter((q) => q.method === 'PATCH').length;
  return { fired: () => patches() > 1, stop: () => r.stop() };
};

/** An occurrence, then a repeat when fired() is asked: fired when the repeat starts a new Event (the window has passed). */
export const seriesWindow: Probe = (seriesWindowMs) => {
  const { r, requests, event } = recorder({ seriesWindowMs, seriesRefreshMs: Infinity });
  event();
  return {
    fired: async () => {
      event();
      await new Promise((resolve) => setImmediate(resolve)); // the write is sent after the Event API is known
      return requests.filter((q) => q.method === 'POST').length > 1;
    },
    stop: () => r.stop(),
    dueMs: seriesWindowMs + 1,
  };
};

/** One event with a burst of 1, another when fired() is asked: fired when that one is allowed (a token has come back). */
export const spamRefill: Probe = (refillMs) => {
  const { r, event } = recorder({ refillMs, burst: 1, seriesRefreshMs: Infinity });
  event('First');
  return {
    fired: () => {
      event('Second');
      return r.dropped === 0;
    },
    stop: () => r.stop(),
  };
};

/** `retryOnConflict` whose first attempt conflicts: fired at the second attempt. */
export const retryBackoff =
  (field: 'durationMs' | 'capMs' | 'jitter'): Probe =>
  async (value) => {
    let attempts = 0;
    const backoff =
      field === 'durationMs'
        ? { durationMs: value, jitter: 0 }
        : field === 'capMs'
          ? { durationMs: 2 ** 60, capMs: value, jitter: 0 }
          : { durationMs: 1, jitter: value };
    const done = retryOnConflict(
      async () => {
        if (attempts++ === 0) throw new KubeApiError(409, { reason: 'Conflict' });
      },
      { backoff, random: () => 1 },
    );
    done.catch(() => {});
    await Promise.resolve();
    if (attempts === 0) await done; // refused before the first attempt: its error
    return { fired: () => attempts > 1, stop: () => {}, dueMs: field === 'jitter' ? 1 + value : value };
  };

/** Health probes over one informer: fired once `/healthz` fails. */
export const healthThreshold =
  (option: 'failingAfterMs' | 'silentAfterMs'): Probe =>
  (ms) => {
    const { informer, stop } = option === 'failingAfterMs' ? failingInformer() : silentInformer();
    try {
      const probes = createProbes({ informers: { pods: informer }, [option]: ms });
      return {
        fired: () => !probes.healthz().ok,
        stop: () => {
          probes.close();
          stop();
        },
      };
    } catch (e) {
      stop();
      throw e;
    }
  };

/** `startTestEnvironment({ startTimeoutMs })`, only with values it refuses before it starts anything. */
export const envtestStartTimeout: Probe = async (startTimeoutMs) => {
  await startTestEnvironment({ startTimeoutMs });
  throw new Error('startTestEnvironment started: this probe is for refused values only');
};

/** A fault proxy's `setLatency(ms)` or `failNext(1, { retryAfterSeconds })`: checked at the call. */
export const faultProxy =
  (call: 'setLatency' | 'retryAfterSeconds'): Probe =>
  async (value) => {
    const proxy = await startFaultProxy({ target: 'http://127.0.0.1:9' });
    try {
      if (call === 'setLatency') proxy.setLatency(value);
      else proxy.failNext(1, { code: 503, retryAfterSeconds: value });
    } catch (e) {
      await proxy.close();
      throw e;
    }
    return { fired: () => false, stop: () => proxy.close() };
  };
