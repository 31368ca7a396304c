/**
 * List views on both servers: informers of the presets' projections and of the server's Table rows
 * over the same objects (the test kit's list-view pods, nodes and deployments), and kubectl's
 * columns computed from the projections (`podCells`…) shown to be what the server prints in its
 * Table cells, and what kube-apiserver 1.36.3 printed for them (`LIST_VIEW_CELLS`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projected, tableColumns, tableRows, type KubeObject, type SharedInformer, type TableRowObject } from '@rxinformer/core';
import { deploymentCells, nodeCells, podCells, PRESETS } from '@rxinformer/core/projection';
import { AGE, LIST_VIEW_CELLS } from '@rxinformer/testing';
import {
  createListViewObjects,
  deleteListViewObjects,
  serverKinds,
  START_TIMEOUT_MS,
  startTestServer,
  type ListViewObjects,
  type TestServer,
} from '@rxinformer/testing/servers';
import { createKubeInformerFactory, deployments, nodes, pods, type KubeInformerFactory } from '../src/index.ts';

/** A row's cells in its columns' order, creation ages left out (they are as young as the objects). */
function rowCells(row: TableRowObject): unknown[] {
  const columns = tableColumns(row)!;
  return columns.map((c) => (c.name === 'Age' ? AGE : row.cells[c.name]));
}

/** Cells computed from a projection, in the columns' order, the age left out. */
const computed = (cells: Record<string, unknown>): unknown[] => Object.entries(cells).map(([name, v]) => (name === 'Age' ? AGE : v));

const byName = <T extends KubeObject>(informer: SharedInformer<T>) =>
  new Map(
    informer
      .getStore()
      .list()
      .map((o) => [o.metadata!.name!, o] as const),
  );

describe.each(serverKinds())('list views against the %s server', (kind) => {
  let server: TestServer;
  let factory: KubeInformerFactory;
  let made: ListViewObjects;
  let ns: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    ns = await server.namespace('lv');
    made = await createListViewObjects(server.api, ns, await server.namespace('lv-ev'));
    factory = createKubeInformerFactory(server.kubeConfig());
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await factory?.close();
    if (made) await deleteListViewObjects(server.api, made);
    await server?.close();
  });

  it("should show, from the presets' projections, the cells the server prints in its Table rows", async () => {
    const scope = { namespace: ns };
    const nodeScope = { labelSelector: made.nodeSelector };
    const podRows = factory.informerFor(projected(pods, PRESETS.pods), scope);
    const podTable = factory.informerFor(tableRows(pods), scope);
    const nodeRows = factory.informerFor(projected(nodes, PRESETS.nodes), nodeScope);
    const nodeTable = factory.informerFor(tableRows(nodes), nodeScope);
    const deploymentRows = factory.informerFor(projected(deployments, PRESETS.deployments), scope);
    const deploymentTable = factory.informerFor(tableRows(deployments), scope);
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 60_000 });
    const now = Date.now();

    const podTables = byName(podTable);
    expect([...byName(podRows).keys()].sort()).toEqual([...made.pods].sort());
    for (const [name, pod] of byName(podRows)) {
      expect([pod.metadata, pod.spec]).toEqual([
        expect.not.objectContaining({ managedFields: expect.anything() }),
        expect.not.objectContaining({ restartPolicy: 'Always' }),
      ]); // projected
      const cells = computed({ ...podCells(pod, now) });
      expect([name, cells]).toEqual([name, rowCells(podTables.get(name)!)]);
      expect([name, cells]).toEqual([name, LIST_VIEW_CELLS.pods[name]]);
    }
    const nodeTables = byName(nodeTable);
    expect(nodeTables.size).toBe(made.nodes.length);
    for (const [name, node] of byName(nodeRows)) {
      const cells = computed({ ...nodeCells(node, now) });
      expect([name, cells]).toEqual([name, rowCells(nodeTables.get(name)!)]);
      expect([name, cells]).toEqual([name, [name, ...LIST_VIEW_CELLS.nodes[name.slice(ns.length + 1)].slice(1)]]);
    }
    const deploymentTables = byName(deploymentTable);
    for (const [name, deployment] of byName(deploymentRows)) {
      const cells = computed({ ...deploymentCells(deployment, now) });
      expect([name, cells]).toEqual([name, rowCells(deploymentTables.get(name)!)]);
      expect([name, cells]).toEqual([name, LIST_VIEW_CELLS.deployments[name]]);
    }
    // The finished pods' rows carry the server's Completed condition.
    expect(podTables.get('failed')?.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
  });
});
