/**
 * How objects are rendered for a client, by its Accept header: as they are, as a `meta.k8s.io/v1`
 * Table (`kubectl get`), or as PartialObjectMetadata (metadata-only informers).
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject, ListMeta } from '@rxinformer/core';
import { groupVersion, type ResourceInfo } from './resources.ts';
import { listJson } from './serialize.ts';
import { toTable } from './table.ts';

/** How the client wants objects rendered, from its Accept header. */
export type Rendering = 'object' | 'table' | 'metadata';

/** The rendering the first media type of the request's Accept header asks for. */
export function renderingOf(req: IncomingMessage): Rendering {
  const accept = req.headers.accept ?? '';
  const first = accept.split(',')[0] ?? '';
  if (first.includes('as=Table')) return 'table';
  if (first.includes('as=PartialObjectMetadata')) return 'metadata';
  return 'object';
}

const partial = (obj: KubeObject): KubeObject => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });

function tableOf(r: ResourceInfo, objs: KubeObject[], meta: ListMeta): unknown {
  return toTable(r.resource, objs, meta, new Date());
}

/** One object as the client asked for it. */
export function renderObject(mode: Rendering, r: ResourceInfo, obj: KubeObject): unknown {
  if (mode === 'table') return tableOf(r, [obj], { resourceVersion: obj.metadata?.resourceVersion });
  return mode === 'metadata' ? partial(obj) : obj;
}

/** The JSON text of a list page as the client asked for it. */
export function renderList(mode: Rendering, r: ResourceInfo, items: KubeObject[], metadata: ListMeta): string {
  if (mode === 'table') return JSON.stringify(tableOf(r, items, metadata));
  if (mode === 'metadata') {
    return JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items: items.map(partial) });
  }
  return listJson(r.listKind, groupVersion(r), metadata, items);
}

/** How a watch renders the objects of its events: undefined for objects as they are. */
export function watchRendering(mode: Rendering, r: ResourceInfo): ((obj: KubeObject, rv: string) => unknown) | undefined {
  if (mode === 'table') return (obj: KubeObject, v: string) => tableOf(r, [obj], { resourceVersion: v });
  if (mode === 'metadata') return (obj: KubeObject) => partial(obj);
  return undefined;
}
