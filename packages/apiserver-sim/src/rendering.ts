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
import { bookmarkTable, includeObjectOf, toTable, type TableRequest } from './table.ts';

/** How the client wants objects rendered, from its Accept header (and `includeObject`, for a Table). */
export type Rendering = 'object' | 'metadata' | TableRequest;

/** True for a Table rendering. */
const isTable = (mode: Rendering): mode is TableRequest => typeof mode === 'object';

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
function conversion(p: Record<string, string>, answering: Answering, r: ResourceInfo, includeObject?: string): Rendering | undefined {
  if (p.g !== 'meta.k8s.io' || (p.v !== 'v1' && p.v !== 'v1beta1')) return undefined;
  if (p.as === 'Table') return { version: p.v, includeObject: includeObjectOf(includeObject) };
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
 * first conversion does not fit the answer (see `conversion`); 400 BadRequest for a Table with an
 * `includeObject` other than `None`, `Metadata`, `Object` or empty.
 */
export function renderingOf(req: IncomingMessage, answering: Answering, r: ResourceInfo, includeObject?: string): Rendering {
  const accept = req.headers.accept ?? '';
  if (accept.trim() === '') return 'object';
  for (const { type, params } of mediaRanges(accept)) {
    if (!SERVED.includes(type)) continue;
    if (params.as === undefined) return 'object';
    const served = conversion(params, answering, r, includeObject);
    if (served) return served;
  }
  throw new ApiStatusError({ ...failure(406, 'NotAcceptable', NOT_ACCEPTABLE), details: {} });
}

const partial = (obj: KubeObject): KubeObject => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });

/** One object as the client asked for it. */
export function renderObject(mode: Rendering, r: ResourceInfo, obj: KubeObject): unknown {
  if (isTable(mode)) return toTable(r, [obj], { resourceVersion: obj.metadata?.resourceVersion }, new Date(), mode);
  return mode === 'metadata' ? partial(obj) : obj;
}

/** The JSON text of a list page as the client asked for it. */
export function renderList(mode: Rendering, r: ResourceInfo, items: KubeObject[], metadata: ListMeta): string {
  if (isTable(mode)) return JSON.stringify(toTable(r, items, metadata, new Date(), mode));
  if (mode === 'metadata') {
    return JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items: items.map(partial) });
  }
  return listJson(r.listKind, groupVersion(r), metadata, items, r.custom === true);
}

/** How one watch renders its events' objects and its bookmarks; undefined for objects as they are. */
export interface WatchRendering {
  /** The wire form of an event's object at `rv`. */
  render: (obj: KubeObject, rv: string) => unknown;
  /** The wire form of a bookmark's object (its metadata: the resourceVersion, maybe the initial-events-end annotation). */
  bookmark?: (metadata: KubeObject['metadata']) => unknown;
}

/**
 * How a watch renders its events: as PartialObjectMetadata (bookmarks too), or as Tables of one
 * row, the column definitions in the stream's first event only (`null` after), as kube-apiserver
 * sends them. One per watch stream: a Table rendering remembers that it sent the columns.
 */
export function watchRendering(mode: Rendering, r: ResourceInfo): WatchRendering | undefined {
  if (mode === 'metadata')
    return { render: partial, bookmark: (metadata) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata }) };
  if (!isTable(mode)) return undefined;
  let columns = true;
  const first = (): boolean => {
    const was = columns;
    columns = false;
    return was;
  };
  return {
    render: (obj, rv) => toTable(r, [obj], { resourceVersion: rv }, new Date(), { ...mode, columns: first() }),
    bookmark: (metadata) => bookmarkTable(r, metadata, new Date(), mode, first()),
  };
}
