/**
 * Table decoding on the wire shapes kube-apiserver 1.36.3 sends (docs/wire-protocol.md, "Tables"),
 * through fetchListerWatcher over a fetch double; the dual-server suite is
 * client-node/test/tableRows.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, toArray, type Observable } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { TABLE_ACCEPT, TABLE_COLUMNS, TableDecodeError, tableColumns, tableRows, type TableRowObject } from '../tableRow.ts';
import { fetchListerWatcher } from './fetchListerWatcher.ts';
import { httpListerWatcher } from './httpListerWatcher.ts';
import { createTableCodec } from './tableRows.ts';
import { WATCH_OPENED, type WatchEvent, type WatchItem } from '../types.ts';

/** A watch's events, after the `WATCH_OPENED` it must emit first. */
async function eventsOf(watch: Observable<WatchItem<TableRowObject>>): Promise<WatchEvent<TableRowObject>[]> {
  const [opened, ...events] = await lastValueFrom(watch.pipe(toArray()));
  expect(opened).toBe(WATCH_OPENED);
  return events as WatchEvent<TableRowObject>[];
}

const columns = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique.', priority: 0 },
  { name: 'Data', type: 'string', format: '', description: 'Data contains the configuration data.', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp is a timestamp.', priority: 0 },
];
const metadata = (name: string, rv: string) => ({
  name,
  namespace: 'probe',
  uid: `u-${name}`,
  resourceVersion: rv,
  creationTimestamp: '2026-11-29T08:06:43Z',
});
const row = (name: string, rv: string, data: number) => ({
  cells: [name, data, '0s'],
  object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metadata(name, rv) },
});
const table = (rv: string, rows: unknown, cols: unknown = columns, extra: object = {}) => ({
  kind: 'Table',
  apiVersion: 'meta.k8s.io/v1',
  metadata: { resourceVersion: rv, ...extra },
  columnDefinitions: cols,
  rows,
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

function fakeFetch(answer: (url: string) => string[]) {
  const calls: { url: string; accept: string }[] = [];
  const doFetch = (async (input: string, init?: RequestInit) => {
    calls.push({ url: input, accept: (init?.headers as Record<string, string>).Accept });
    const chunks = answer(input);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    return new Response(body, { status: 200 });
  }) as typeof fetch;
  return { doFetch, calls };
}

const configmaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

describe('Table rows over HTTP', () => {
  it('should ask for Tables with the rows’ metadata, on list and watch, and key the cells by column name', async () => {
    const { doFetch, calls } = fakeFetch((url) =>
      url.includes('watch=true')
        ? [line('ADDED', table('5', [row('c2', '5', 1)])), line('MODIFIED', table('6', [row('c2', '6', 2)], null))]
        : [JSON.stringify(table('4', [row('c1', '3', 3)], columns, { continue: 'next', remainingItemCount: 1 }))],
    );
    const lw = fetchListerWatcher<TableRowObject>({
      baseUrl: 'http://k8s',
      resource: tableRows(configmaps),
      namespace: 'probe',
      fetch: doFetch,
    });
    const page = await firstValueFrom(lw.list({ limit: 1, singlePage: true }));
    const events = await eventsOf(lw.watch({ resourceVersion: '4' }));
    expect(calls.map((c) => c.url)).toEqual([
      'http://k8s/api/v1/namespaces/probe/configmaps?limit=1&includeObject=Metadata',
      'http://k8s/api/v1/namespaces/probe/configmaps?watch=true&resourceVersion=4&includeObject=Metadata',
    ]);
    expect(calls.every((c) => c.accept === TABLE_ACCEPT)).toBe(true);
    expect(page.metadata).toEqual({ resourceVersion: '4', continue: 'next', remainingItemCount: 1 });
    expect(JSON.parse(JSON.stringify(page.items))).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'TableRow', metadata: metadata('c1', '3'), cells: { Name: 'c1', Data: 3, Age: '0s' } },
    ]);
    expect(events.map((e) => [e.type, (e.object as TableRowObject).metadata.name, (e.object as TableRowObject).cells.Data])).toEqual([
      ['ADDED', 'c2', 1],
      ['MODIFIED', 'c2', 2], // its Table had columnDefinitions: null, as after the first event of every stream
    ]);
    const defs = tableColumns(page.items[0]);
    expect(defs?.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(tableColumns(events[1].object)).toBe(defs); // one frozen array while the columns stay the same
    expect(Object.isFrozen(defs) && Object.isFrozen(defs?.[0])).toBe(true);
    expect(JSON.parse(JSON.stringify(page.items[0]))).not.toHaveProperty('columns'); // rows serialize without them
    expect(tableColumns(structuredClone(page.items[0]))).toBeUndefined();
    expect(tableColumns({ ...page.items[0] })).toBe(defs);
  });

  it('should turn a Table bookmark into a bookmark, the initial-events-end annotation kept, and pass ERROR events', async () => {
    const end = { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } };
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
      message: 'too old resource version',
    };
    const { doFetch } = fakeFetch(() => [
      line('ADDED', table('7', [row('c1', '7', 1)])),
      line(
        'BOOKMARK',
        table(
          '9',
          [{ cells: ['', 0, '<unknown>'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: end } }],
          null,
        ),
      ),
      line('BOOKMARK', table('10', null, null)),
      line('ERROR', status),
    ]);
    const lw = fetchListerWatcher<TableRowObject>({ baseUrl: 'http://k8s', resource: tableRows(configmaps), fetch: doFetch });
    const events = await eventsOf(lw.watch({ sendInitialEvents: true, allowWatchBookmarks: true }));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'BOOKMARK', 'ERROR']);
    expect(events[1].object.metadata).toEqual(end);
    expect(events[2].object.metadata).toEqual({ resourceVersion: '10' });
    expect(events[3].object).toEqual(status);
  });

  it('should make each row of a watch event with several rows an event, and take the columns a list taught it', async () => {
    const { doFetch } = fakeFetch((url) =>
      url.includes('watch=true')
        ? [line('DELETED', table('8', [row('a', '8', 0), row('b', '8', 1)], null))]
        : [JSON.stringify(table('4', []))],
    );
    const lw = fetchListerWatcher<TableRowObject>({ baseUrl: 'http://k8s', path: '/api/v1/configmaps', table: true, fetch: doFetch });
    await firstValueFrom(lw.list({}));
    const events = await eventsOf(lw.watch({}));
    expect(events.map((e) => [e.type, (e.object as TableRowObject).metadata.name, (e.object as TableRowObject).cells.Name])).toEqual([
      ['DELETED', 'a', 'a'],
      ['DELETED', 'b', 'b'],
    ]);
  });

  it('should fail with TableDecodeError when something else than a Table comes, or rows come before any columns', async () => {
    const podList = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    const { doFetch } = fakeFetch((url) =>
      url.includes('watch=true') ? [line('ADDED', table('5', [row('c2', '5', 1)], null))] : [podList],
    );
    const lw = fetchListerWatcher<TableRowObject>({ baseUrl: 'http://k8s', resource: tableRows(configmaps), fetch: doFetch });
    await expect(firstValueFrom(lw.list({}))).rejects.toMatchObject({ name: 'TableDecodeError', reason: 'NotTable', received: 'PodList' });
    await expect(lastValueFrom(lw.watch({}))).rejects.toMatchObject({ reason: 'NoColumns' });
    const codec = createTableCodec();
    expect(() => codec.page(JSON.stringify(table('1', [{ object: {} }])))).toThrow(TableDecodeError);
    expect(() => codec.page(JSON.stringify(table('1', 'rows')))).toThrow(TableDecodeError);
    expect(() => codec.page(JSON.stringify(table('1', [], [{ nope: 1 }])))).toThrow(TableDecodeError);
    const convert = codec.stream();
    expect(() => convert({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'x' } } }, () => true)).toThrow(
      /as=Table\) and ConfigMap came/,
    );
  });

  it('should key a column named __proto__ as an own cell, and take new columns when the server changes them', () => {
    const codec = createTableCodec();
    const proto = [...columns, { name: '__proto__', type: 'string', format: '', description: '', priority: 1 }];
    const [r] = codec.page(JSON.stringify(table('1', [{ ...row('a', '1', 0), cells: ['a', 0, '1s', 'x'] }], proto))).items;
    expect(Object.getPrototypeOf(r.cells)).toBe(Object.prototype);
    expect(Object.hasOwn(r.cells, '__proto__')).toBe(true);
    const [again] = codec.page(JSON.stringify(table('2', [row('b', '2', 0)]))).items;
    expect(again[TABLE_COLUMNS]).not.toBe(r[TABLE_COLUMNS]);
    expect(again[TABLE_COLUMNS]?.length).toBe(3);
  });

  it('should refuse metadataOnly and table together', () => {
    expect(() =>
      httpListerWatcher(() => Promise.reject(new Error('unused')), { path: '/api/v1/pods', table: true, metadataOnly: true }),
    ).toThrow(InvalidOptionsError);
  });
});
