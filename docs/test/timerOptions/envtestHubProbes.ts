/**
 * Probes of the timer options of envtest's CRD installs and `eventually`/`consistently`, of the
 * hub, of HTTP/2 and of snapshots: each starts what the option drives (or has it refused) and says whether its effect happened.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeTransport } from '@rxinformer/client-node';
import { createInformerFactory, createSharedInformer } from '@rxinformer/core';
import { memorySnapshotStore, snapshotIdentity } from '@rxinformer/core/snapshot';
import { consistently, eventually, installCRDs, uninstallCRDs } from '@rxinformer/envtest';
import { createHub, subjectAccessReviewAuthorizer, tokenReviewAuthenticator, type ReviewClient } from '@rxinformer/hub';
import { fakeListerWatcher } from '@rxinformer/testing';
import { realDelay, type Probe } from './probe.ts';

/**
 * `installCRDs` or `uninstallCRDs` with no CRDs and `timeoutMs`: the value is checked before
 * anything is sent (refused past one timer), and with nothing to do the call ends at once.
 */
export const crdTimeout =
  (call: 'install' | 'uninstall'): Probe =>
  async (timeoutMs) => {
    const kc = new KubeConfig(); // a server nobody answers at: with no CRDs, nothing is sent
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:9' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    if (call === 'install') await installCRDs(kc, { objects: [], timeoutMs });
    else await uninstallCRDs(kc, [], { timeoutMs });
    return { fired: () => false, stop: () => undefined };
  };

/**
 * `eventually` with a check that never passes, or `consistently` with one that always does, and
 * `option` set: a refused value rejects at once; a started one runs on Node's own timers (which the
 * fake timers leave alone), so the probe only tells it started, then aborts it.
 */
export const pollOption =
  (fn: 'eventually' | 'consistently', option: 'timeoutMs' | 'intervalMs' | 'durationMs'): Probe =>
  async (value) => {
    const ac = new AbortController();
    const options = { [option]: value, signal: ac.signal };
    const run: Promise<unknown> =
      fn === 'eventually'
        ? eventually(() => {
            throw new Error('not yet');
          }, options)
        : consistently(() => true, options);
    const early = await Promise.race([
      run.then(
        () => undefined,
        (e: unknown) => e,
      ),
      realDelay(20).then(() => 'running'),
    ]);
    if (early instanceof Error) throw early;
    return {
      fired: () => false,
      stop: async () => {
        ac.abort();
        await run.catch(() => undefined);
      },
    };
  };

/** A hub's `metrics$` with `metricsIntervalMs`: its first figures are the effect. */
export const hubMetricsInterval: Probe = (metricsIntervalMs) => {
  const factory = createInformerFactory(() => fakeListerWatcher());
  const hub = createHub({
    clusters: { default: factory },
    authenticator: { authenticate: async () => ({ refused: 401, message: 'no one here' }) },
    authorizer: { authorize: async () => ({ allowed: false }) },
    metricsIntervalMs,
  });
  let emitted = false;
  const subscription = hub.metrics$.subscribe(() => (emitted = true));
  return {
    fired: () => emitted,
    stop: async () => {
      subscription.unsubscribe();
      await hub.close();
      factory.shutdown();
    },
  };
};

/** A review client answering every review: allowed, and the token authenticated. */
const allowing: ReviewClient = {
  request: async <T>() => ({ status: { allowed: true, authenticated: true, user: { username: 'probe', groups: [] } } }) as T,
};

/** A SubjectAccessReview authorizer with one cache option set: checked when it is made; nothing runs. */
export const reviewCacheOption =
  (option: 'allowTtlMs' | 'denyTtlMs'): Probe =>
  (value) => {
    subjectAccessReviewAuthorizer(allowing, { [option]: value });
    return { fired: () => false, stop: () => undefined };
  };

/** A TokenReview authenticator with one cache option set: checked when it is made; nothing runs. */
export const tokenCacheOption =
  (option: 'successTtlMs' | 'failureTtlMs'): Probe =>
  (value) => {
    tokenReviewAuthenticator(allowing, { [option]: value });
    return { fired: () => false, stop: () => undefined };
  };

/**
 * A SubjectAccessReview authorizer re-checking every `recheckIntervalMs`, holding one decision that
 * expires at once: fired when `changes$` names its user (the first sweep).
 */
export const reviewRecheck: Probe = async (recheckIntervalMs) => {
  const authorizer = subjectAccessReviewAuthorizer(allowing, { allowTtlMs: 1, recheckIntervalMs });
  let changed = false;
  const subscription = authorizer.changes$.subscribe(() => (changed = true));
  await authorizer.authorize({ username: 'probe', groups: [] }, { verb: 'list', group: '', resource: 'pods', cluster: 'default' });
  return { fired: () => changed, stop: () => subscription.unsubscribe() };
};

/** A TokenReview authenticator re-checking every `recheckIntervalMs`: fired when `changes$` first emits. */
export const tokenRecheck: Probe = (recheckIntervalMs) => {
  const authenticator = tokenReviewAuthenticator(allowing, { recheckIntervalMs });
  let changed = false;
  const subscription = authenticator.changes$.subscribe(() => (changed = true));
  return { fired: () => changed, stop: () => subscription.unsubscribe() };
};

/** A transport to an HTTPS server with one HTTP/2 time set: checked when it is made; nothing is sent. */
export const http2Option =
  (option: 'readIdleTimeoutMs' | 'pingTimeoutMs' | 'connectTimeoutMs'): Probe =>
  (value) => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const transport = createKubeTransport(kc, { http2: { [option]: value } });
    return { fired: () => false, stop: () => transport.close() };
  };

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** An informer (or a factory's) saving snapshots every `intervalMs`: checked when it is made; nothing runs. */
export const snapshotInterval =
  (where: 'informer' | 'factory'): Probe =>
  (intervalMs) => {
    const store = memorySnapshotStore();
    if (where === 'informer') {
      const identity = snapshotIdentity({ server: 'probe', resource: configMaps, scope: {} });
      createSharedInformer(fakeListerWatcher(), { snapshot: { store, identity, intervalMs } });
      return { fired: () => false, stop: () => undefined };
    }
    const factory = createInformerFactory(() => fakeListerWatcher(), { snapshots: { store, server: 'probe', intervalMs } });
    try {
      factory.informerFor(configMaps);
    } finally {
      factory.shutdown();
    }
    return { fired: () => false, stop: () => undefined };
  };
