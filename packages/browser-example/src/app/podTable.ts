/**
 * The pod table in the DOM, updated in place: one `<tr data-key="namespace/name">` per pod, created,
 * moved, changed or removed as the rows change, so a row under the reader's eye is not rebuilt.
 */
import type { PodRow } from './podView.ts';

/** The cells of a row, in column order; each is a `<td>` with this class. */
const COLUMNS = ['namespace', 'name', 'phase', 'age'] as const;

/** How long a changed row stays highlighted, in ms. */
const FLASH_MS = 800;

/** A `<tbody>` kept equal to the last rows rendered. */
export interface PodTable {
  /** Makes the body show `rows`, in their order, touching only what differs. */
  render(rows: readonly PodRow[]): void;
}

/**
 * Binds a table body.
 *
 * @example
 * const table = createPodTable(document.querySelector('tbody')!);
 * table.render(podRows(store, Date.now()));
 *
 * Caveat: rows are matched by key and compared by object reference (cached objects are immutable),
 * so a pod replaced under the same key (new UID) shows as changed, not as a new row.
 */
export function createPodTable(body: HTMLTableSectionElement): PodTable {
  const rendered = new Map<string, { tr: HTMLTableRowElement; row: PodRow }>();

  const createRow = (row: PodRow): HTMLTableRowElement => {
    const tr = document.createElement('tr');
    tr.dataset.key = row.key;
    for (const column of COLUMNS) {
      const td = document.createElement('td');
      td.className = column;
      tr.append(td);
    }
    return tr;
  };

  const fill = (tr: HTMLTableRowElement, row: PodRow): void => {
    COLUMNS.forEach((column, i) => {
      const td = tr.cells[i];
      if (td.textContent !== row[column]) td.textContent = row[column];
    });
    tr.dataset.phase = row.phase;
  };

  const flash = (tr: HTMLTableRowElement): void => {
    tr.classList.remove('changed');
    void tr.offsetWidth; // restart the CSS animation
    tr.classList.add('changed');
    setTimeout(() => tr.classList.remove('changed'), FLASH_MS);
  };

  return {
    render(rows) {
      const keep = new Set(rows.map((r) => r.key));
      for (const [key, { tr }] of rendered) {
        if (!keep.has(key)) {
          tr.remove();
          rendered.delete(key);
        }
      }
      let previous: HTMLTableRowElement | null = null;
      for (const row of rows) {
        let entry = rendered.get(row.key);
        const isNew = !entry;
        if (!entry) {
          entry = { tr: createRow(row), row };
          rendered.set(row.key, entry);
        }
        const changed = entry.row.object !== row.object;
        entry.row = row;
        fill(entry.tr, row);
        const expected: Element | null = previous ? previous.nextElementSibling : body.firstElementChild;
        if (expected !== entry.tr) {
          if (previous) previous.after(entry.tr);
          else body.prepend(entry.tr);
        }
        if (isNew || changed) flash(entry.tr);
        previous = entry.tr;
      }
    },
  };
}
