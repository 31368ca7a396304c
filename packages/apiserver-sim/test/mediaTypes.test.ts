/**
 * The Content-Type of write bodies, as a real API server negotiates it: JSON, YAML and protobuf
 * (an empty Content-Type is JSON), 415 for anything else. A page on any web site can make a browser
 * send a text/plain, form or multipart POST to 127.0.0.1 without a CORS preflight; answered 415,
 * it changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { startApiServer, type ApiServer } from '../src/index.ts';

let sim: ApiServer;

beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 3 });
});

afterAll(async () => {
  await sim.close();
});

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** Sends `body` with exactly the Content-Type given (none when undefined), as a browser or curl would. */
function send(method: string, path: string, contentType: string | undefined, body?: string): Promise<{ code: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = body === undefined ? {} : { 'Content-Length': Buffer.byteLength(body) };
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    const r = request(`${sim.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

const configMap = (name: string, data: Record<string, string> = { a: '1' }) => JSON.stringify({ metadata: { name }, data });

describe('write bodies by Content-Type', () => {
  it('should answer a cross-site text/plain POST 415 UnsupportedMediaType and create nothing', async () => {
    const r = await send('POST', CONFIGMAPS, 'text/plain;charset=UTF-8', configMap('csrf'));
    expect(r.code).toBe(415);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    expect(r.body.message).toContain('application/json, application/yaml, application/vnd.kubernetes.protobuf');
    expect(sim.storage.find('configmaps', 'default', 'csrf')).toBeUndefined();
  });

  it('should refuse the other simple-request types, form and multipart, on create', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect((await send('POST', CONFIGMAPS, type, configMap('form'))).code).toBe(415);
    }
    expect(sim.storage.find('configmaps', 'default', 'form')).toBeUndefined();
  });

  it('should refuse a text/plain update and a text/plain delete body, leaving the object as it was', async () => {
    const stored = sim.storage.create('configmaps', { metadata: { name: 'kept' }, data: { a: '1' } }, 'default');
    expect((await send('PUT', `${CONFIGMAPS}/kept`, 'text/plain', configMap('kept', { a: '2' }))).code).toBe(415);
    expect((await send('DELETE', `${CONFIGMAPS}/kept`, 'text/plain', '{"gracePeriodSeconds":0}')).code).toBe(415);
    expect(sim.storage.find('configmaps', 'default', 'kept')).toBe(stored);
  });

  it('should accept JSON with parameters, YAML media type, and no Content-Type as JSON', async () => {
    expect((await send('POST', CONFIGMAPS, 'application/json; charset=utf-8', configMap('json'))).code).toBe(201);
    expect((await send('POST', CONFIGMAPS, 'Application/YAML', configMap('yaml'))).code).toBe(201);
    expect((await send('POST', CONFIGMAPS, undefined, configMap('none'))).code).toBe(201);
    expect((await send('PUT', `${CONFIGMAPS}/json`, 'application/json', configMap('json', { a: '2' }))).code).toBe(200);
  });

  it('should not look at the Content-Type of a delete without a body', async () => {
    sim.storage.create('configmaps', { metadata: { name: 'gone' } }, 'default');
    expect((await send('DELETE', `${CONFIGMAPS}/gone`, 'text/plain')).code).toBe(200);
    expect(sim.storage.find('configmaps', 'default', 'gone')).toBeUndefined();
  });
});
