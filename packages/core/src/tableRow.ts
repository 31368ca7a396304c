/**
 * Table-row informers: the API server's own columns (kubectl's), asked for with `Accept:
 * application/json;as=Table;g=meta.k8s.io;v=v1` and `includeObject=Metadata`, each row kept as a
 * `TableRowObject` (its metadata and its cells by column name). `tableRows(pods)` names a resource
 * that way, as `metadataOnly(pods)` names its metadata. The decoding is the HTTP ListerWatchers'
 * (`http/tableRows.ts`); docs/wire-protocol.md says what the server sends.
 */
import { requireFullResource } from './descriptorForm.ts';
import { RxInformerError } from './errors.ts';
import type { KubeObject, ObjectMeta, ResourceDescriptor } from './types.ts';

/** One column of a Table, as the server defines it (`meta.k8s.io/v1 TableColumnDefinition`). */
export interface TableColumnDefinition {
  /** E.g. `Ready`, `Status`; the key of its cell in `TableRowObject.cells`. */
  readonly name: string;
  /** An OpenAPI type: `string`, `integer`, `number`, `boolean`, `date` (a cell's value may be of another: look at it). */
  readonly type: string;
  /** An OpenAPI format: `name` marks the name column; mostly empty. */
  readonly format: string;
  /** What the column shows (long: the API's field documentation). */
  readonly description: string;
  /** 0: shown by `kubectl get`; higher: only with `-o wide`. */
  readonly priority: number;
}

/** A condition of a row (`meta.k8s.io/v1 TableRowCondition`): the server sets `Completed` on finished pods. */
export interface TableRowCondition {
  /** E.g. `Completed`. */
  readonly type?: string;
  /** `True`, `False` or `Unknown`. */
  readonly status?: string;
  /** Machine-readable, e.g. `Succeeded`. */
  readonly reason?: string;
  /** For humans. */
  readonly message?: string;
}

/** Where a row keeps its Table's column definitions: a symbol, so JSON and structured clones leave them out. */
export const TABLE_COLUMNS: unique symbol = Symbol.for('rxinformer.tableColumns') as never;

/**
 * One row of the server's Table of a resource, as a table-row informer stores it. `kind`
 * `TableRow` is this stored form's, never the wire's. `cells` are the server's values by column
 * name (`Ready: '1/2'`, `Restarts: '7 (5m ago)'`, `Age: '3d'`…), computed when the server sent the
 * row: relative times (Age, Last Seen, the time in Restarts) are as old as the row; compute ages
 * from `metadata.creationTimestamp` to show them live.
 */
export interface TableRowObject extends KubeObject {
  /** `meta.k8s.io/v1`. */
  apiVersion: 'meta.k8s.io/v1';
  /** `TableRow`. */
  kind: 'TableRow';
  /** The row object's metadata (`includeObject=Metadata`): name, namespace, uid, resourceVersion, labels… */
  metadata: ObjectMeta;
  /** The cells by column name. */
  readonly cells: Readonly<Record<string, unknown>>;
  /** The row's conditions, when the server gives any. */
  readonly conditions?: readonly TableRowCondition[];
  /** The column definitions of the Table the row came in (shared by the rows of one stream); see `tableColumns`. */
  readonly [TABLE_COLUMNS]?: readonly TableColumnDefinition[];
}

/** The Accept header of Table requests, list and watch alike. */
export const TABLE_ACCEPT = 'application/json;as=Table;g=meta.k8s.io;v=v1';

/** The type of the objects a table-row informer stores (its reflector's `expectedType`). */
export const TABLE_ROW_TYPE: {
  /** `meta.k8s.io/v1`. */
  readonly apiVersion: 'meta.k8s.io/v1';
  /** `TableRow`. */
  readonly kind: 'TableRow';
} = Object.freeze({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'TableRow',
});

/** A resource descriptor for its Table rows. */
export type TableRowsDescriptor<D extends ResourceDescriptor> = Omit<D, '__type' | 'table'> & {
  /** Always true. */
  readonly table: true;
  /** Carries the object type only; never set. */
  readonly __type?: TableRowObject;
};

/**
 * The Table-row form of a resource descriptor: an informer of it lists and watches the server's
 * Table of the resource (kubectl's columns, computed by the server: custom resources' printer
 * columns included), keeps each row as a `TableRowObject`, and is kept apart by a factory from
 * the full informer of the same resource.
 *
 * @example
 * const podRows = factory.informerFor(tableRows(pods)); // SharedInformer<TableRowObject>
 * const columns = tableColumns(podRows.getStore().list()[0]); // Name, Ready, Status, Restarts, Age, IP…
 * podRows.getStore().list().map((row) => columns?.map((c) => row.cells[c.name]));
 *
 * Caveat: the cells are the server's strings and numbers, as old as the row; the server still reads
 * whole objects to print them (it saves the client's bandwidth, parsing and memory, not its own).
 * A resource that is already `metadataOnly()` or `projected()` throws `InvalidOptionsError`.
 */
export function tableRows<D extends ResourceDescriptor>(resource: D): TableRowsDescriptor<D> {
  requireFullResource(resource, 'the Table rows');
  return Object.freeze({ ...resource, table: true }) as unknown as TableRowsDescriptor<D>;
}

/**
 * The column definitions of the Table a row came in, in the server's order; undefined for anything
 * else (an object that is not a row, a row that went through JSON or `structuredClone`).
 *
 * @example
 * const columns = tableColumns(store.list()[0]) ?? [];
 * const wide = columns.filter((c) => c.priority > 0).map((c) => c.name); // IP, Node, Nominated Node, Readiness Gates
 */
export function tableColumns(row: unknown): readonly TableColumnDefinition[] | undefined {
  if (row === null || typeof row !== 'object') return undefined;
  return (row as { [TABLE_COLUMNS]?: readonly TableColumnDefinition[] })[TABLE_COLUMNS];
}

/**
 * A Table was asked for and something else came (the server or a proxy ignored `as=Table`), or a
 * Table came that cannot be read (`reason`: `NotTable`, `NoColumns`, `BadRow`). The reflector
 * reports it and retries, as any failed list or watch.
 */
export class TableDecodeError extends RxInformerError {
  /** Always `TableDecodeError`: set as a string, so it survives minification. */
  override readonly name: string = 'TableDecodeError';
  /** What came instead, or the offending part, for diagnostics (never in the message: it may hold a Secret's data). */
  readonly received: unknown;

  constructor(reason: 'NotTable' | 'NoColumns' | 'BadRow', message: string, received?: unknown) {
    super(reason, message);
    this.received = received;
  }
}
