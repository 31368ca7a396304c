/** Probes of the controller manager's timer options. */
import { createManager } from '@rxinformer/controller';
import { createInformerFactory } from '@rxinformer/core';
import { fakeListerWatcher, page } from '@rxinformer/testing';
import { NEVER, of } from 'rxjs';
import type { Probe } from './probe.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A manager made with `cacheSyncTimeoutMs`: checked when it is made, then handed to `waitForCacheSync` (a row of its own). */
export const managerCacheSync: Probe = (cacheSyncTimeoutMs) => {
  createManager({ factory: createInformerFactory(() => fakeListerWatcher()), cacheSyncTimeoutMs, logger: quiet });
  return { fired: () => false, stop: () => undefined };
};

/**
 * A manager stopping while a leading runnable never stops, within `gracefulShutdownMs`: fired when
 * the shutdown goes on without it (the manager is done).
 */
export const managerGrace: Probe = async (gracefulShutdownMs) => {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([], '1')));
  lw.scriptWatch(NEVER);
  const factory = createInformerFactory(() => lw as never);
  factory.informerFor({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true });
  const manager = createManager({ factory, gracefulShutdownMs, logger: quiet });
  manager.add({ name: 'stuck', start: () => ({ stop: () => new Promise<void>(() => undefined) }) });
  await manager.start();
  let done = false;
  void manager.done.then(() => (done = true));
  void manager.stop();
  return { fired: () => done, stop: () => factory.shutdown() };
};
