/**
 * The layout of the controller package's src, bottom up: the API client and its writes, helpers on
 * objects, the event recorder, the logger, the one reconcile loop, sharding, and the builder that
 * puts a controller together, and the manager that runs controllers (see layout.ts).
 */
import { fileURLToPath } from 'node:url';
import { describeLayout } from './layout.ts';

describeLayout('controller/src', fileURLToPath(new URL('../../packages/controller/src/', import.meta.url)), [
  '.',
  'client',
  'objects',
  'events',
  'log',
  'reconcile',
  'shard',
  'builder',
  'manager',
]);
