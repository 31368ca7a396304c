import { describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { serveProbes } from './probeServer.ts';
import { createProbes } from './probes.ts';

/** Sends `request` as is over a socket; resolves with the status line of the answer ('' when none). */
function send(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => resolve(answer.split('\r\n')[0]));
    socket.on('error', reject);
  });
}

describe('serveProbes', () => {
  it('should answer a request target that is not a URL with 404, and keep serving', async () => {
    const thrown: unknown[] = [];
    const record = (e: unknown) => thrown.push(e);
    process.on('uncaughtException', record);
    const server = await serveProbes({ probes: createProbes({}), registry: new Registry() });
    try {
      // Each threw a TypeError (Invalid URL) out of the request listener: uncaught, it ends the process.
      for (const target of ['//[', 'http://[', '//['])
        expect(await send(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toBe('HTTP/1.1 404 Not Found');
      expect(await send(server.port, 'GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toBe('HTTP/1.1 200 OK');
      expect(thrown).toEqual([]);
    } finally {
      await server.close();
      process.off('uncaughtException', record);
    }
  });
});
