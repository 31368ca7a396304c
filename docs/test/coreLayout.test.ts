/** The layout of core's src: a folder per concern, read bottom up as the architecture (see layout.ts). */
import { fileURLToPath } from 'node:url';
import { describeLayout } from './layout.ts';

describeLayout('core/src', fileURLToPath(new URL('../../packages/core/src/', import.meta.url)), [
  '.',
  'time',
  'labels',
  'projection',
  'store',
  'http',
  'reflector',
  'snapshot',
  'informer',
  'operators',
  'workqueue',
  'leader-election',
  'sharding',
  'channel',
  'multicluster',
]);
