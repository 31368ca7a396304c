/**
 * The Angular example's page as its Chromium test and its benchmark drive it: the rows it shows,
 * its namespace filter, its status line, the renders it counts (`window.rxinformerExample`) and the
 * DOM mutations of its pod table (a MutationObserver installed on demand).
 */
import type { Page } from 'playwright-core';

/** What the page has rendered so far (see the example's `renderStats.ts`). */
export interface Renders {
  passes: number;
  table: number;
  summary: number;
  log: number;
}

/** One DOM mutation in the pod table, summarized. */
export interface TableMutation {
  type: 'childList' | 'characterData' | 'attributes';
  /** The `data-key` of the row it happened in (for childList: of the row added or removed). */
  key: string | null;
  added: number;
  removed: number;
}

/** The browser messages of a page: errors it logged or threw, and the network failures Chromium reports. */
export function collectErrors(page: Page): { errors: string[]; network: string[] } {
  const out = { errors: [] as string[], network: [] as string[] };
  page.on('pageerror', (e) => out.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // Chromium's own lines about failed requests (a dropped watch, an injected 503): not the page's.
    if (/^Failed to load resource|net::ERR_/.test(m.text())) out.network.push(m.text());
    else out.errors.push(m.text());
  });
  return out;
}

/** The keys of the rows shown, in order. */
export function rowKeys(page: Page): Promise<string[]> {
  return page.$$eval('#pods tr[data-key]', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.key ?? ''));
}

/** The page's render counters. */
export function renders(page: Page): Promise<Renders> {
  return page.evaluate(() => ({ ...(globalThis as unknown as { rxinformerExample: { renders: Renders } }).rxinformerExample.renders }));
}

/** Picks `namespace` in the filter (`''` for all). */
export async function selectNamespace(page: Page, namespace: string): Promise<void> {
  await page.selectOption('#namespace', namespace);
}

/** Starts recording the pod table's mutations (anew). */
export function watchTable(page: Page): Promise<void> {
  return page.evaluate(() => {
    const w = globalThis as unknown as { tableMutations: unknown[]; tableObserver?: MutationObserver };
    w.tableObserver?.disconnect();
    w.tableMutations = [];
    const keyOf = (node: Node | null): string | null => {
      const element = node instanceof Element ? node : (node?.parentElement ?? null);
      return element?.closest('tr')?.getAttribute('data-key') ?? null;
    };
    w.tableObserver = new MutationObserver((records) => {
      for (const r of records) {
        const node = r.type === 'childList' ? (r.addedNodes[0] ?? r.removedNodes[0] ?? r.target) : r.target;
        w.tableMutations.push({ type: r.type, key: keyOf(node), added: r.addedNodes.length, removed: r.removedNodes.length });
      }
    });
    w.tableObserver.observe(document.querySelector('#pods')!, { childList: true, subtree: true, characterData: true, attributes: true });
  });
}

/** The mutations recorded since `watchTable` (delivered so far). */
export function tableMutations(page: Page): Promise<TableMutation[]> {
  return page.evaluate(() => (globalThis as unknown as { tableMutations: TableMutation[] }).tableMutations.slice());
}

/** Resolves once the row of `key` shows `phase`. */
export async function waitForPhase(page: Page, key: string, phase: string): Promise<void> {
  await page.waitForFunction(
    ([k, p]) => document.querySelector(`#pods tr[data-key="${k}"] td.phase`)?.textContent === p,
    [key, phase] as const,
    { timeout: 20_000 },
  );
}
