/**
 * Probes of the API server simulator's timer options, on its default Node timers (faked here):
 * watches over real HTTP, deletions and history through its object store.
 */
import { startApiServer, type ApiServer, type ApiServerOptions } from '@rxinformer/apiserver-sim';
import { jest } from '@jest/globals';
import { get } from 'node:http';
import { eventually, type Probe, type Started } from './probe.ts';

/** A simulator on a free port; `stop` closes it. */
async function withSim(
  options: ApiServerOptions,
  use: (sim: ApiServer) => Promise<Omit<Started, 'stop'>> | Omit<Started, 'stop'>,
): Promise<Started> {
  const sim = await startApiServer({ port: 0, ...options });
  try {
    return { ...(await use(sim)), stop: () => sim.close() };
  } catch (e) {
    await sim.close();
    throw e;
  }
}

/** A GET of `path` whose body lines are collected; resolves once the headers have come. */
async function stream(sim: ApiServer, path: string) {
  const lines: string[] = [];
  let ended = false;
  let status = 0;
  const req = get(`${sim.url}${path}`, (res) => {
    status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
    res.on('end', () => (ended = true));
    res.on('error', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  if (!(await eventually(() => status > 0))) throw new Error(`no answer to GET ${path}`);
  if (status >= 400) {
    await eventually(() => ended);
    throw new RefusedRequest(status, lines.join('\n'));
  }
  return { lines, ended: () => ended };
}

/** The simulator refused a request (a 4xx answer, its Status as the message), as kube-apiserver does. */
export class RefusedRequest extends Error {
  readonly code: number;

  constructor(code: number, body: string) {
    super(body);
    this.name = 'RefusedRequest';
    this.code = code;
  }
}

/** A real-I/O effect, looked for for up to a second once the fake clock has moved. */
const soon = (check: () => boolean) => () => eventually(check, 1000);

const WATCH = '/api/v1/namespaces/default/configmaps?watch=1';

/** A watch from now that allows bookmarks: fired at its first BOOKMARK. */
export const bookmarkInterval: Probe = (bookmarkIntervalMs) =>
  withSim({ bookmarkIntervalMs }, async (sim) => {
    const rv = sim.storage.storage.resourceVersion;
    const s = await stream(sim, `${WATCH}&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1000000000`);
    return { fired: soon(() => s.lines.some((l) => l.includes('"BOOKMARK"'))) };
  });

/** A watch without `timeoutSeconds`: fired when the server ends it. */
export const defaultWatchTimeout: Probe = (defaultWatchTimeoutSeconds) =>
  withSim({ defaultWatchTimeoutSeconds }, async (sim) => {
    const s = await stream(sim, WATCH);
    return { fired: soon(s.ended) };
  });

/** A watch with the client's `timeoutSeconds`: fired when the server ends it. */
export const clientWatchTimeout: Probe = (timeoutSeconds) =>
  withSim({}, async (sim) => {
    const s = await stream(sim, `${WATCH}&timeoutSeconds=${timeoutSeconds}`);
    return { fired: soon(s.ended) };
  });

/** A list at a future resourceVersion: fired when the server gives up waiting for it (504). */
export const tooLargeWait: Probe = (tooLargeWaitMs) =>
  withSim({ tooLargeWaitMs }, async (sim) => {
    const answered = await getAnswered(
      sim,
      '/api/v1/namespaces/default/configmaps?resourceVersion=99999&resourceVersionMatch=NotOlderThan',
    );
    return { fired: soon(answered) };
  });

/**
 * Sends `GET path` and waits until the server holds it (it has armed a timer); the result tells
 * whether its answer has come.
 */
async function getAnswered(sim: ApiServer, path: string): Promise<() => boolean> {
  const timers = jest.getTimerCount();
  let answered = false;
  get(`${sim.url}${path}`, (res) => {
    answered = true;
    res.resume();
  }).on('error', () => {});
  if (!(await eventually(() => jest.getTimerCount() > timers || answered))) throw new Error(`GET ${path} armed no timer`);
  return () => answered;
}

/** A GET of `/api` under the latency fault: fired when it is answered. */
export const latency =
  (field: 'ms' | 'jitterMs'): Probe =>
  (value) =>
    withSim({}, async (sim) => {
      if (field === 'ms') sim.faults.latency(value);
      else sim.faults.latency(0, value);
      return { fired: soon(await getAnswered(sim, '/api')) };
    });

/** `failNext(1, { retryAfterSeconds })`: a value handed to clients, checked at the call. */
export const failRetryAfter: Probe = (retryAfterSeconds) =>
  withSim({}, (sim) => {
    sim.faults.failNext(1, { code: 503, retryAfterSeconds });
    return { fired: () => false };
  });

/** True while `name` exists in `namespace` (`undefined`: cluster-scoped). */
function exists(sim: ApiServer, resource: string, namespace: string | undefined, name: string): boolean {
  try {
    sim.storage.get(resource, namespace, name);
    return true;
  } catch {
    return false;
  }
}

const POD = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };

/** A pod deleted with its grace period (from the option or the delete): fired when it is gone. */
export const podGrace =
  (how: 'defaultPodGracePeriodSeconds' | 'graceMsPerSecond' | 'gracePeriodSeconds'): Probe =>
  (value) => {
    const options: ApiServerOptions =
      how === 'defaultPodGracePeriodSeconds'
        ? { defaultPodGracePeriodSeconds: value }
        : how === 'graceMsPerSecond'
          ? { defaultPodGracePeriodSeconds: 1, graceMsPerSecond: value }
          : {};
    return withSim(options, (sim) => {
      sim.storage.create('pods', POD, 'default');
      sim.storage.delete('pods', 'default', 'p', how === 'gracePeriodSeconds' ? { gracePeriodSeconds: value } : {});
      return { fired: () => !exists(sim, 'pods', 'default', 'p'), dueMs: how === 'graceMsPerSecond' ? value : value * 1000 };
    });
  };

/** A namespace deleted: fired when the simulated namespace controller has removed it. */
export const namespaceDeletion: Probe = (namespaceDeletionDelayMs) =>
  withSim({ namespaceDeletionDelayMs }, (sim) => {
    sim.storage.create('namespaces', { metadata: { name: 'doomed' } });
    sim.storage.delete('namespaces', undefined, 'doomed');
    return { fired: () => !exists(sim, 'namespaces', undefined, 'doomed') };
  });

/** One change: fired once it has aged out of the watch history (the revision is compacted). */
export const historyAge: Probe = (maxAgeMs) =>
  withSim({ history: { maxAgeMs } }, (sim) => {
    const created = sim.storage.create('configmaps', { metadata: { name: 'cm' } }, 'default');
    const rv = Number(created.metadata?.resourceVersion);
    return { fired: () => sim.storage.storage.compactedRevision >= rv, dueMs: maxAgeMs + 1 };
  });
