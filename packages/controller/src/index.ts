/**
 * @rxinformer/controller — writes and controller helpers over a small `ApiClient` contract that
 * fetch (here) and client-node (`kubeApiClient` in @rxinformer/client-node) implement: immer drafts
 * sent as JSON Patch with a resourceVersion test, merge patch, server-side apply, status writes,
 * delete with preconditions, `createOrUpdate`, `retryOnConflict`, typed API errors, owner
 * references, finalizers, status conditions, an event recorder, and the controller builder
 * (`controllerFor`: one primary resource, `owns`, `watches`, predicates, priorities, debounce, and
 * read-your-writes: a key's next reconcile waits until the caches show the writes its last one
 * made through `req.api`).
 * Browser-safe: rxjs, immer and core only.
 *
 * @example
 * const client = fetchApiClient({ baseUrl: 'http://127.0.0.1:8001' });
 * const cms = resourceApi(client, { group: '', version: 'v1', resource: 'configmaps', namespaced: true });
 * const cm = await cms.get({ namespace: 'default', name: 'settings' });
 * await cms.update(cm, (d) => { d.metadata!.labels = { ...d.metadata!.labels, tier: 'gold' }; });
 *
 * @module @rxinformer/controller
 */

// The API client contract, reads and writes, typed errors
export * from './client/index.ts';

// Owners, finalizers and status conditions
export * from './objects/index.ts';

// Events
export * from './events/index.ts';

// The controller: the builder, its one reconcile loop, its logger
export * from './builder/index.ts';
export * from './reconcile/index.ts';
export * from './log/index.ts';
export * from './shard/index.ts';

// The manager: controllers, servers and the leader election, started and stopped in order
export * from './manager/index.ts';
