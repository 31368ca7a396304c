/** The resources the browser tests and the bench watch. */
import type { ResourceDescriptor } from '@rxinformer/core';

export const PODS: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
