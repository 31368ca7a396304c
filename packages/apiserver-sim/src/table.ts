/**
 * `meta.k8s.io/v1` Table output, what `kubectl get` and table-row informers ask for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`: kube-apiserver's columns and cells for
 * pods, nodes and deployments (core's `podCells`, `nodeCells`, `deploymentCells`), configmaps,
 * namespaces and events; Name and Age for custom resources; Name and Created At for the rest
 * (kube-apiserver's default; it prints most other built-in kinds its own way: the README lists
 * them). Each row carries its object as `includeObject` asks: none, its metadata, or all of it.
 */
import type { KubeObject, ListMeta } from '@rxinformer/core';
import { INITIAL_EVENTS_END_ANNOTATION } from '@rxinformer/core/http';
import { deploymentCells, formatAge, humanDuration, nodeCells, podCells } from '@rxinformer/core/projection';
import { groupVersion } from './resources.ts';
import { errors } from './status.ts';
import { COLUMNS, CUSTOM_COLUMNS, DEFAULT_COLUMNS, EVENT_COLUMNS, type ColumnDefinition } from './tableColumns.ts';

/** What a Table request asks for: the Table's version and what each row carries of its object. */
export interface TableRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  version: 'v1' | 'v1beta1';
  /** `Metadata` (the default): a PartialObjectMetadata; `Object`: the object; `None`: nothing. */
  includeObject: 'None' | 'Metadata' | 'Object';
}

/** A resource as the Table printers tell them apart. */
export interface TableResource {
  group: string;
  version?: string;
  resource: string;
  kind?: string;
  custom?: boolean;
}

/** The `includeObject` query parameter of a Table request; 400 BadRequest in the API server's words for another value. */
export function includeObjectOf(value: string | undefined): TableRequest['includeObject'] {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

type Cells = (obj: KubeObject, now: number) => unknown[];

/** The columns and the cells of a resource. */
function printerOf(r: TableResource): { columns: readonly ColumnDefinition[]; cells: Cells } {
  const key = `${r.group}/${r.resource}`;
  switch (key) {
    case '/pods':
      return byName(COLUMNS[key], podCells);
    case '/nodes':
      return byName(COLUMNS[key], nodeCells);
    case 'apps/deployments':
      return byName(COLUMNS[key], deploymentCells);
    case '/configmaps':
      return { columns: COLUMNS[key], cells: (o, now) => [nameOf(o), configMapData(o), formatAge(o.metadata?.creationTimestamp, now)] };
    case '/namespaces':
      return {
        columns: COLUMNS[key],
        cells: (o, now) => [nameOf(o), (o as { status?: { phase?: string } }).status?.phase ?? '', ageOf(o, now)],
      };
    case '/events':
    case 'events.k8s.io/events':
      return { columns: EVENT_COLUMNS, cells: r.group === '' ? eventCells : (o, now) => eventCells(fromEventsV1(o), now) };
  }
  if (r.custom === true)
    return { columns: CUSTOM_COLUMNS, cells: (o, now) => [nameOf(o), o.metadata?.creationTimestamp ? ageOf(o, now) : null] };
  return { columns: DEFAULT_COLUMNS, cells: (o) => [nameOf(o), String(o.metadata?.creationTimestamp ?? '0001-01-01T00:00:00Z')] };
}

/** A printer of cells by column name (core's kubectl columns), put in the columns' order. */
function byName<C extends object>(columns: readonly ColumnDefinition[], cells: (o: KubeObject, now: number) => C) {
  return { columns, cells: (o: KubeObject, now: number) => columns.map((c) => (cells(o, now) as Record<string, unknown>)[c.name]) };
}

const nameOf = (o: KubeObject): string => o.metadata?.name ?? '';
const ageOf = (o: KubeObject, now: number): string => formatAge(o.metadata?.creationTimestamp, now);
const configMapData = (o: KubeObject): number => {
  const c = o as { data?: object; binaryData?: object };
  return Object.keys(c.data ?? {}).length + Object.keys(c.binaryData ?? {}).length;
};

/** A core/v1 Event, as its columns read it. */
interface CoreEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

/** An events.k8s.io/v1 Event as the core/v1 Event kube-apiserver converts it to before printing. */
function fromEventsV1(o: KubeObject): CoreEvent {
  const e = o as Record<string, unknown> & { deprecatedSource?: CoreEvent['source']; regarding?: CoreEvent['involvedObject'] };
  return {
    metadata: o.metadata,
    type: e.type as string,
    reason: e.reason as string,
    message: e.note as string,
    count: e.deprecatedCount as number,
    firstTimestamp: e.deprecatedFirstTimestamp as string,
    lastTimestamp: e.deprecatedLastTimestamp as string,
    eventTime: e.eventTime as string,
    series: e.series as CoreEvent['series'],
    involvedObject: e.regarding,
    source: e.deprecatedSource,
    reportingComponent: e.reportingController as string,
    reportingInstance: e.reportingInstance as string,
  };
}

/** kubectl's event columns: times since, the object as `kind/name`, the source, the count (1 for a singleton). */
function eventCells(o: KubeObject, now: number): unknown[] {
  const e = o as CoreEvent;
  const since = (t: string | undefined) => (t ? humanDuration(now - Date.parse(t)) : '<unknown>');
  const first = e.firstTimestamp ? since(e.firstTimestamp) : since(e.eventTime);
  const last = e.series ? since(e.series.lastObservedTime) : e.lastTimestamp ? since(e.lastTimestamp) : first;
  const count = e.series ? (e.series.count ?? 0) : e.count || 1;
  const involved = e.involvedObject ?? {};
  const kind = (involved.kind ?? '').toLowerCase();
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  return [
    last,
    e.type ?? '',
    e.reason ?? '',
    involved.name ? `${kind}/${involved.name}` : kind,
    involved.fieldPath ?? '',
    instance ? `${component}, ${instance}` : component,
    (e.message ?? '').trim(),
    first,
    count,
    nameOf(o),
  ];
}

/** What a pod's row says beside its cells: kube-apiserver marks finished pods `Completed`. */
function rowConditions(r: TableResource, obj: KubeObject): object[] | undefined {
  if (r.group !== '' || r.resource !== 'pods') return undefined;
  const phase = (obj as { status?: { phase?: string } }).status?.phase;
  if (phase === 'Succeeded')
    return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

/**
 * A row's object as `includeObject` asks; a bookmark's is its metadata on an object of the
 * resource's kind (`Object`) or a PartialObjectMetadata, even with `None` for the end bookmark of
 * a watch-list (kube-apiserver 1.36.3; later bookmarks with `None` have none).
 */
function rowObject(r: TableResource, obj: KubeObject, req: TableRequest, bookmark = false): unknown {
  const apiVersion = `meta.k8s.io/${req.version}`;
  if (req.includeObject === 'Object')
    return bookmark
      ? { kind: r.kind, apiVersion: groupVersion({ group: r.group, version: r.version ?? 'v1' }), metadata: obj.metadata }
      : obj;
  const initialEnd = obj.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
  if (req.includeObject === 'None' && !(bookmark && initialEnd)) return null;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/** One row of `obj` at `now`. */
function rowOf(r: TableResource, obj: KubeObject, now: number, req: TableRequest, bookmark = false): object {
  const printer = printerOf(r);
  const conditions = bookmark ? undefined : rowConditions(r, obj);
  const full = req.includeObject === 'Object' && !bookmark ? withType(r, obj) : obj;
  return { cells: printer.cells(obj, now), ...(conditions && { conditions }), object: rowObject(r, full, req, bookmark) };
}

/** `obj` with its kind and apiVersion (list items lack them), as a Table row's whole object has them. */
const withType = (r: TableResource, obj: KubeObject): KubeObject =>
  r.kind ? { kind: r.kind, apiVersion: groupVersion({ group: r.group, version: r.version ?? 'v1' }), ...obj } : obj;

/**
 * The Table of `objects` of resource `r`, with the list's metadata; `columns: false` sends
 * `columnDefinitions: null`, as kube-apiserver does after the first event of a watch.
 *
 * @example
 * toTable({ group: '', resource: 'pods' }, pods, { resourceVersion: '5' }, new Date());
 */
export function toTable(
  resource: TableResource | string,
  objects: readonly KubeObject[],
  listMeta: ListMeta,
  now: Date,
  options: Partial<TableRequest> & { columns?: boolean } = {},
): unknown {
  const r = typeof resource === 'string' ? { group: '', resource } : resource;
  const req: TableRequest = { version: options.version ?? 'v1', includeObject: options.includeObject ?? 'Metadata' };
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${req.version}`,
    metadata: listMeta,
    columnDefinitions: options.columns === false ? null : printerOf(r).columns,
    rows: objects.map((o) => rowOf(r, o, now.getTime(), req)),
  };
}

/** The Table of a BOOKMARK: one row, printed from an object holding only the bookmark's metadata. */
export function bookmarkTable(r: TableResource, metadata: KubeObject['metadata'], now: Date, req: TableRequest, columns: boolean): unknown {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${req.version}`,
    metadata: { resourceVersion: metadata?.resourceVersion },
    columnDefinitions: columns ? printerOf(r).columns : null,
    rows: [rowOf(r, { metadata }, now.getTime(), req, true)],
  };
}

/** kubectl's compact age of `from` at `now`: `45s`, `3m2s`, `5h`, `2d`… (core's `humanDuration`). */
export function humanAge(from: Date, now: Date): string {
  return humanDuration(now.getTime() - from.getTime());
}
