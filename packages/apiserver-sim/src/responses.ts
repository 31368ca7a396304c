/**
 * Writing answers: JSON bodies (serialized here or already), and Status answers with the headers
 * the API server sends (`Retry-After`, text/plain for 429).
 */
import type { ServerResponse } from 'node:http';
import type { Status } from '@rxinformer/core';

/** Sends a JSON body. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, code, JSON.stringify(body), headers);
}

/** Sends JSON that is already serialized. */
export function sendJsonText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

/** Sends a Status, with `Retry-After` when it carries `retryAfterSeconds`. 429 is text/plain like the real limiter. */
export function sendStatus(res: ServerResponse, status: Status & { code: number }): void {
  const retry = status.details?.retryAfterSeconds;
  const headers: Record<string, string> = retry !== undefined && retry > 0 ? { 'Retry-After': String(retry) } : {};
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status.code === 429) {
    const text = 'Too many requests, please try again later.\n';
    res.writeHead(429, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    });
    res.end(text);
    return;
  }
  sendJson(res, status.code, status, headers);
}
