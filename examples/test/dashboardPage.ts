/**
 * The example dashboard as its test drives it: its server started from the consumer's install (on
 * the simulator it embeds, or on a cluster by kubeconfig), and a user's tab in Chromium that counts
 * its WebSockets and records every row it ever rendered (a MutationObserver from before the first
 * render), so that a test can say what a user never saw.
 */
import type { Browser, Page } from 'playwright-core';
import type { Consumer, Running } from './consumer.ts';

/** The example's server, started with `node server/main.ts`. */
export interface DashboardServer {
  readonly running: Running;
  /** `http://127.0.0.1:port`. */
  readonly url: string;
  /** The hub's last figures printed after `since` (an output offset), once it printed one. */
  metricsAfter(since: number): Promise<HubFigures>;
}

/** What the server's metrics line says. */
export interface HubFigures {
  clients: number;
  streams: number;
  watches: number;
}

/** Starts the example's server with `args`, printing its figures every second. */
export async function startDashboardServer(consumer: Consumer, args: string[]): Promise<DashboardServer> {
  const running = consumer.start('node', ['server/main.ts', '--port', '0', '--metrics-seconds', '1', ...args]);
  const [, url] = await running.waitFor(/dashboard at (http:\/\/[\d.:]+)\//);
  const line = /hub: (\d+) clients · (\d+) streams · (\d+) API server watches/g;
  return {
    running,
    url,
    metricsAfter: async (since) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const all = [...running.output().slice(since).matchAll(line)];
        if (all.length > 0) {
          const [, clients, streams, watches] = all[all.length - 1];
          return { clients: Number(clients), streams: Number(streams), watches: Number(watches) };
        }
        if (Date.now() > deadline) throw new Error(`the dashboard's server printed no figures:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

/** A user's tab on the dashboard. */
export interface DashboardTab {
  readonly page: Page;
  /** WebSockets the page opened. */
  readonly sockets: string[];
  /** Page errors and console errors. */
  readonly errors: string[];
  /** Every row key (`namespace/name`) the page ever rendered, of any kind. */
  seen(): Promise<string[]>;
  /** The keys of the rows shown now for `kind` (picked first). */
  rows(kind: string): Promise<string[]>;
  /** The count the picker shows for each kind. */
  counts(): Promise<Record<string, number>>;
}

/** Opens the dashboard as the user of `token`. */
export async function openDashboard(browser: Browser, url: string, token: string): Promise<DashboardTab> {
  const page = await browser.newPage({ viewport: { width: 1180, height: 800 } });
  const sockets: string[] = [];
  const errors: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.addInitScript(() => {
    const seen = new Set<string>();
    (window as unknown as { __seenRows: Set<string> }).__seenRows = seen;
    new MutationObserver((records) => {
      for (const r of records)
        for (const node of r.addedNodes)
          if (node instanceof Element) for (const tr of node.matches('tr') ? [node] : node.querySelectorAll('tr')) addKey(tr);
    }).observe(document, { childList: true, subtree: true });
    function addKey(tr: Element) {
      const key = tr.getAttribute('data-key');
      if (key !== null) seen.add(`${tr.closest('table')?.getAttribute('data-kind')}:${key}`);
    }
  });
  await page.goto(`${url}/#token=${encodeURIComponent(token)}`);
  const pick = async (kind: string) => {
    await page.click(`nav button[data-kind="${kind}"]`);
    await page.waitForSelector(`table[data-kind="${kind}"]`);
  };
  return {
    page,
    sockets,
    errors,
    seen: () => page.evaluate(() => [...(window as unknown as { __seenRows: Set<string> }).__seenRows].sort()),
    rows: async (kind) => {
      await pick(kind);
      return page.$$eval('tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-key') ?? '').sort());
    },
    counts: () =>
      page.$$eval('nav button[data-kind]', (buttons) =>
        Object.fromEntries(buttons.map((b) => [b.getAttribute('data-kind'), Number(b.querySelector('.count')?.textContent)])),
      ),
  };
}
