/**
 * Decoding of Table answers (`as=Table`) into `TableRowObject`s, for the HTTP ListerWatchers of a
 * `tableRows()` resource. What kube-apiserver sends (docs/wire-protocol.md): every list page is a
 * Table with its `columnDefinitions`; a watch sends one Table per event, with the column
 * definitions in the stream's first event only (`null` after), a BOOKMARK as a Table whose one row
 * holds the bookmark's metadata, and ERROR events as a plain Status.
 */
import { TABLE_COLUMNS, TableDecodeError, type TableColumnDefinition, type TableRowObject } from '../tableRow.ts';
import type { ListMeta, ListPage, ObjectMeta, WatchEvent } from '../types.ts';
import { parseListJson } from './watchDecoder.ts';

/** Decodes the Tables of one ListerWatcher, keeping the last column definitions it saw. */
export interface TableCodec {
  /** A list page's rows, from the text of its body (a Table); throws `TableDecodeError` when it is not one. */
  page(text: string): ListPage<TableRowObject>;
  /**
   * A converter for one watch stream: each decoded event (a Table) becomes the events of its rows,
   * each of the event's type (an ERROR passes as it is); returns false once `emit` does.
   */
  stream(): (event: WatchEvent, emit: (event: WatchEvent<TableRowObject>) => boolean | void) => boolean;
}

/** The wire form of a Table (`meta.k8s.io/v1`). */
interface WireTable {
  kind?: unknown;
  metadata?: ListMeta;
  columnDefinitions?: unknown;
  rows?: unknown;
}

/**
 * A codec for the Tables of one ListerWatcher. Rows share one frozen array of column definitions
 * as long as the server's stay the same (a custom resource's printer columns change with its CRD).
 *
 * @example
 * const codec = createTableCodec();
 * const page = codec.page(await readBody(r, url, 'listBody')); // page.items: TableRowObject[]
 */
export function createTableCodec(): TableCodec {
  let known: readonly TableColumnDefinition[] | undefined;
  let knownText = '';
  /** The column definitions of a Table, the known array when they are equal. */
  const adopt = (defs: unknown): readonly TableColumnDefinition[] => {
    if (!Array.isArray(defs) || defs.some((d) => typeof (d as { name?: unknown })?.name !== 'string'))
      throw new TableDecodeError('NoColumns', 'a Table whose columnDefinitions are not a list of named columns', defs);
    const text = JSON.stringify(defs);
    if (known === undefined || text !== knownText) {
      known = Object.freeze(defs.map((d: object) => Object.freeze({ ...d }) as TableColumnDefinition));
      knownText = text;
    }
    return known;
  };
  return {
    page(text) {
      return pageOf(parseListJson(text), adopt);
    },
    stream() {
      let columns: readonly TableColumnDefinition[] | undefined;
      return (event, emit) => {
        if (event.type === 'ERROR') return emit(event as WatchEvent<TableRowObject>) !== false;
        const table = tableOf(event.object);
        if (table.columnDefinitions !== null && table.columnDefinitions !== undefined) columns = adopt(table.columnDefinitions);
        const rows = rowsOf(table);
        if (event.type === 'BOOKMARK') return emit({ type: 'BOOKMARK', object: bookmarkOf(table, rows) }) !== false;
        const defs = columns ?? known;
        if (defs === undefined)
          throw new TableDecodeError('NoColumns', 'a Table watch event without columnDefinitions, and none known yet', table);
        for (const row of rows) if (emit({ type: event.type, object: rowObject(row, defs) }) === false) return false;
        return true;
      };
    },
  };
}

/** The rows of a Table list body as a list page. */
function pageOf(body: unknown, adopt: (defs: unknown) => readonly TableColumnDefinition[]): ListPage<TableRowObject> {
  const table = tableOf(body);
  const columns = adopt(table.columnDefinitions);
  const items = rowsOf(table).map((row) => rowObject(row, columns));
  return { apiVersion: 'meta.k8s.io/v1', kind: 'TableRowList', metadata: table.metadata ?? {}, items };
}

/** `value` as a Table; throws `TableDecodeError` (`NotTable`) when it is something else. */
function tableOf(value: unknown): WireTable {
  const t = value as WireTable | null;
  if (t === null || typeof t !== 'object' || t.kind !== 'Table') {
    const kind = typeof t?.kind === 'string' ? t.kind : 'an object without a kind';
    throw new TableDecodeError('NotTable', `a Table was asked for (as=Table) and ${kind} came: the server or a proxy ignored Accept`, kind);
  }
  if (t.metadata !== undefined && (t.metadata === null || typeof t.metadata !== 'object'))
    throw new TableDecodeError('NotTable', 'a Table whose metadata is not an object', t.metadata);
  return t;
}

/** A Table's rows (none when `rows` is null, as for an empty list). */
function rowsOf(table: WireTable): readonly WireRow[] {
  if (table.rows === null || table.rows === undefined) return [];
  if (!Array.isArray(table.rows)) throw new TableDecodeError('BadRow', 'a Table whose rows are not a list', table.rows);
  return table.rows as WireRow[];
}

/** A row on the wire. */
interface WireRow {
  cells?: unknown;
  conditions?: unknown;
  object?: { metadata?: ObjectMeta } | null;
}

/** A row as a stored object: its metadata, its cells by column name, its conditions. */
function rowObject(row: WireRow, columns: readonly TableColumnDefinition[]): TableRowObject {
  if (row === null || typeof row !== 'object' || !Array.isArray(row.cells))
    throw new TableDecodeError('BadRow', 'a Table row without a list of cells', row);
  const cells: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i].name;
    // `__proto__` could be a column name: assigned, it would set the prototype instead.
    if (name === '__proto__')
      Object.defineProperty(cells, name, { value: row.cells[i], enumerable: true, writable: true, configurable: true });
    else cells[name] = row.cells[i];
  }
  const metadata = row.object && typeof row.object === 'object' && row.object.metadata ? row.object.metadata : {};
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'TableRow',
    metadata,
    cells,
    ...(Array.isArray(row.conditions) && { conditions: row.conditions }),
    [TABLE_COLUMNS]: columns,
  };
}

/** A bookmark's object: its row's metadata (the resourceVersion, and the initial-events-end annotation), else the Table's resourceVersion. */
function bookmarkOf(table: WireTable, rows: readonly WireRow[]): TableRowObject {
  const metadata = rows[0]?.object?.metadata ?? { resourceVersion: table.metadata?.resourceVersion };
  return { apiVersion: 'meta.k8s.io/v1', kind: 'TableRow', metadata, cells: {} };
}
