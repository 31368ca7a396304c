/**
 * How objects are rendered for a client, by its Accept header: as they are, as a `meta.k8s.io/v1`
 * Table (`kubectl get`), or as PartialObjectMetadata (metadata-only informers). The media types of
 * the header are tried by preference (`q`), as the API server negotiates: the first one served wins,
 * and a header naming only conversions (`as=`) that are not served is a 406.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject, ListMeta } from '@rxinformer/core';
import { groupVersion, type ResourceInfo } from './resources.ts';
import { listJson } from './serialize.ts';
import { errors } from './status.ts';
import { toTable } from './table.ts';

/** How the client wants objects rendered, from its Accept header. */
export type Rendering = 'object' | 'table' | 'metadata';

/** What a request answers with: one object (get, writes), a list, or a watch's events. */
export type Answering = 'object' | 'list' | 'watch';

/** One media type of an Accept header with its parameters. */
interface MediaRange {
  params: Record<string, string>;
  q: number;
}

/** The media types of an Accept header, most preferred first (q=0, "not acceptable", left out). */
function mediaRanges(accept: string): MediaRange[] {
  const ranges = accept.split(',').map((part) => {
    const params: Record<string, string> = {};
    for (const p of part.split(';').slice(1)) {
      const [k, v = ''] = p.split('=').map((s) => s.trim());
      if (k) params[k.toLowerCase()] = v;
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    return { params, q: Number.isNaN(q) ? 1 : q };
  });
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q); // stable: header order breaks ties
}

/** What a conversion (`as=…;g=…;v=…`) renders for `answering`, undefined when it is not served. */
function conversion(p: Record<string, string>, answering: Answering): Rendering | undefined {
  if (p.g !== 'meta.k8s.io') return undefined;
  if (p.as === 'Table' && (p.v === 'v1' || p.v === 'v1beta1')) return 'table';
  if (p.v !== 'v1') return undefined;
  // As the API server: the list type for a list, the object type for one object and a watch's events.
  if (p.as === 'PartialObjectMetadataList' && answering === 'list') return 'metadata';
  if (p.as === 'PartialObjectMetadata' && answering !== 'list') return 'metadata';
  return undefined;
}

/**
 * The rendering the request's Accept header asks for an answer of `answering`: the most preferred
 * media type the simulator serves; 406 NotAcceptable when it names only conversions it does not
 * (e.g. `as=PartialObjectMetadata` for a list, or `v=v1beta1`).
 */
export function renderingOf(req: IncomingMessage, answering: Answering): Rendering {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('as=')) return 'object';
  for (const { params } of mediaRanges(accept)) {
    if (params.as === undefined) return 'object';
    const served = conversion(params, answering);
    if (served) return served;
  }
  throw errors.notAcceptable(`none of the conversions asked for can be served for this request: ${accept}`);
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

/** How a watch renders the objects of its events (bookmarks too, for metadata): undefined for objects as they are. */
export function watchRendering(mode: Rendering, r: ResourceInfo): ((obj: KubeObject, rv: string) => unknown) | undefined {
  if (mode === 'table') return (obj: KubeObject, v: string) => tableOf(r, [obj], { resourceVersion: v });
  if (mode === 'metadata') return partial;
  return undefined;
}
