/** Test helpers: JSON requests and a line-by-line watch reader over real HTTP. */
import type { KubeObject, Status } from '@rxinformer/core';

/** A decoded HTTP answer. */
export interface Answer<T = Record<string, unknown>> {
  code: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Sends a request and decodes the JSON answer (text kept for non-JSON bodies). */
export async function req<T = any>(
  url: string,
  init: { method?: string; body?: unknown; rawBody?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined) headers['Content-Type'] = init.contentType ?? 'application/json';
  const r = await fetch(url, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
  const text = await r.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { code: r.status, headers: r.headers, body: parsed as T, text };
}

/** A watch event as read from the wire. */
export interface WireEvent {
  type: string;
  object: KubeObject & Status & Record<string, any>;
}

/** An open watch stream read line by line. */
export interface WatchReader {
  /** The HTTP status. */
  code: number;
  /** Every parsed event so far. */
  events: WireEvent[];
  /** Lines that were not JSON. */
  bad: string[];
  /** Resolves when at least `n` events arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<WireEvent[]>;
  /** Resolves when the server ends the stream; `clean` is false when the connection broke. */
  ended: Promise<{ clean: boolean }>;
  /** Aborts the stream. */
  close(): void;
}

/** Opens a watch with fetch and parses its lines. */
export async function openWatch(url: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  const ac = new AbortController();
  const r = await fetch(url, { signal: ac.signal, headers });
  const events: WireEvent[] = [];
  const bad: string[] = [];
  const waiters: (() => void)[] = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  let done = false;
  const ended = (async () => {
    if (!r.body) return { clean: true };
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done: d } = await reader.read();
        if (d) break;
        buf += decoder.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim() === '') continue;
          try {
            events.push(JSON.parse(line) as WireEvent);
          } catch {
            bad.push(line);
          }
        }
        notify();
      }
      return { clean: true };
    } catch {
      return { clean: false };
    } finally {
      done = true;
      notify();
    }
  })();
  return {
    code: r.status,
    events,
    bad,
    ended,
    close: () => ac.abort(),
    waitFor: async (n, ms = 5000) => {
      const deadline = Date.now() + ms;
      while (events.length < n) {
        if (done) throw new Error(`stream ended after ${events.length} events, wanted ${n}: ${JSON.stringify(events.map((e) => e.type))}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out with ${events.length} events, wanted ${n}: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return events;
    },
  };
}

/** Sleeps. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
