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
import { ApiStatusError, errors, failure } from './status.ts';
import { toTable } from './table.ts';

/** How the client wants objects rendered, from its Accept header (`table-v1beta1`: a `meta.k8s.io/v1beta1` Table). */
export type Rendering = 'object' | 'table' | 'table-v1beta1' | 'metadata';

/** What a request answers with: one object (get, writes), a list, or a watch's events. */
export type Answering = 'object' | 'list' | 'watch';

/** One media type of an Accept header with its parameters. */
interface MediaRange {
  type: string;
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
    return { type: part.split(';')[0].trim().toLowerCase(), params, q: Number.isNaN(q) ? 1 : q };
  });
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q); // stable: header order breaks ties
}

/** The media types the API server serves, and the wildcards that match them. */
const SERVED = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', '*/*', 'application/*'];
const NOT_ACCEPTABLE =
  '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch';

/**
 * What a conversion (`as=…;g=…;v=…`) renders for `answering` of resource `r`, undefined when it is
 * not served. As the API server, the first conversion negotiated decides: PartialObjectMetadata for
 * a list (or PartialObjectMetadataList for one object) is a 406, not a fall back to the next type.
 */
function conversion(p: Record<string, string>, answering: Answering, r: ResourceInfo): Rendering | undefined {
  if (p.g !== 'meta.k8s.io' || (p.v !== 'v1' && p.v !== 'v1beta1')) return undefined;
  if (p.as === 'Table') return p.v === 'v1' ? 'table' : 'table-v1beta1';
  if (p.v !== 'v1') return undefined;
  const internal = `*${r.group ? r.group.split('.')[0] : 'core'}.${r.kind}`;
  if (p.as === 'PartialObjectMetadataList') {
    if (answering === 'list') return 'metadata';
    if (answering === 'object')
      throw errors.notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${internal})`);
  }
  if (p.as === 'PartialObjectMetadata') {
    if (answering !== 'list') return 'metadata';
    throw errors.notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${internal}List)`);
  }
  return undefined;
}

/**
 * The rendering the request's Accept header asks for an answer of `answering` of resource `r`: the
 * most preferred media type the server serves (a conversion, or JSON for any plain type it serves);
 * 406 NotAcceptable with the API server's words when none is served (`text/html`), or when the
 * first conversion does not fit the answer (see `conversion`).
 */
export function renderingOf(req: IncomingMessage, answering: Answering, r: ResourceInfo): Rendering {
  const accept = req.headers.accept ?? '';
  if (accept.trim() === '') return 'object';
  for (const { type, params } of mediaRanges(accept)) {
    if (!SERVED.includes(type)) continue;
    if (params.as === undefined) return 'object';
    const served = conversion(params, answering, r);
    if (served) return served;
  }
  throw new ApiStatusError({ ...failure(406, 'NotAcceptable', NOT_ACCEPTABLE), details: {} });
}

const partial = (obj: KubeObject): KubeObject => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });

function tableOf(r: ResourceInfo, objs: KubeObject[], meta: ListMeta, mode: Rendering = 'table'): unknown {
  const table = toTable(r.resource, objs, meta, new Date()) as { apiVersion: string; rows: { object: { apiVersion: string } }[] };
  if (mode !== 'table-v1beta1') return table;
  // a v1beta1 Table: the Table and its rows' objects in that version
  const apiVersion = 'meta.k8s.io/v1beta1';
  return { ...table, apiVersion, rows: table.rows.map((row) => ({ ...row, object: { ...row.object, apiVersion } })) };
}

/** One object as the client asked for it. */
export function renderObject(mode: Rendering, r: ResourceInfo, obj: KubeObject): unknown {
  if (mode === 'table' || mode === 'table-v1beta1') return tableOf(r, [obj], { resourceVersion: obj.metadata?.resourceVersion }, mode);
  return mode === 'metadata' ? partial(obj) : obj;
}

/** The JSON text of a list page as the client asked for it. */
export function renderList(mode: Rendering, r: ResourceInfo, items: KubeObject[], metadata: ListMeta): string {
  if (mode === 'table' || mode === 'table-v1beta1') return JSON.stringify(tableOf(r, items, metadata, mode));
  if (mode === 'metadata') {
    return JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items: items.map(partial) });
  }
  return listJson(r.listKind, groupVersion(r), metadata, items, r.custom === true);
}

/** How a watch renders the objects of its events (bookmarks too, for metadata): undefined for objects as they are. */
export function watchRendering(mode: Rendering, r: ResourceInfo): ((obj: KubeObject, rv: string) => unknown) | undefined {
  if (mode === 'table' || mode === 'table-v1beta1') return (obj: KubeObject, v: string) => tableOf(r, [obj], { resourceVersion: v }, mode);
  if (mode === 'metadata') return partial;
  return undefined;
}
