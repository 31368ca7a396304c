/**
 * What the bench's pages watch (pods and nodes) and in which form: full objects, projected to
 * their list view's fields (core's presets), or metadata only. Read from the page's query.
 */
import { metadataOnly, projected, type ResourceDescriptor } from '@rxinformer/core';
import { PRESETS } from '@rxinformer/core/projection';
import type { Probe } from './probe.ts';

export const PODS: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const NODES: ResourceDescriptor = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

/** The form of the cached objects. */
export type View = 'full' | 'projected' | 'metadata';

/** The view the page (or worker) was asked for by `?view=`, full by default. */
export function viewOf(search: string): View {
  const view = new URLSearchParams(search).get('view') ?? 'full';
  if (view !== 'full' && view !== 'projected' && view !== 'metadata') throw new Error(`unknown view ${view}`);
  return view;
}

/** `resource` in the form `view` names, for an informer that lists and watches it from the API server. */
export function inForm(resource: ResourceDescriptor, view: View): ResourceDescriptor {
  if (view === 'metadata') return metadataOnly(resource);
  if (view === 'projected') return projected(resource, resource.resource === 'nodes' ? PRESETS.nodes : PRESETS.pods) as ResourceDescriptor;
  return resource;
}

/** What a bench page reports on `window.bench`. */
export interface BenchTab {
  readonly probe: Probe;
  /** True once every informer of the page has synced (at once without informers). */
  synced(): boolean;
  /** Objects held in the page. */
  held(): { pods: number; nodes: number };
  /** Relists of the page's informers since they started (a watch that could not resume). */
  relists(): number;
  /** One pod held, as the page holds it (to check its form), or undefined. */
  samplePod(): unknown;
  /** React pages: commits seen by the Profiler. */
  commits?: number;
  /** The first error of the page or its worker. */
  error?: string;
}
