/**
 * kubectl's columns computed from the test kit's list-view objects, held to the cells
 * kube-apiserver 1.36.3 printed for the same objects (`LIST_VIEW_CELLS`); from the whole objects
 * and from the presets' projections alike. client-node/test/listViews.test.ts compares them with
 * a live server's Tables.
 */
import { describe, expect, it } from '@jest/globals';
import { AGE, LIST_VIEW_CELLS, listViewDeployments, listViewNodes, listViewPods } from '@rxinformer/testing';
import type { KubeObject } from '../types.ts';
import { deploymentCells, nodeCells } from './kubectlColumns.ts';
import { podCells } from './podColumns.ts';
import { PRESETS } from './presets.ts';

const now = Date.parse('2026-11-29T08:10:00Z');
const created = '2026-11-29T08:00:00Z';
/** An object as the server stores it: the fixture's name, spec and status, created ten minutes before `now`. */
const stored = (name: string, fields: object, extra: object = {}): KubeObject =>
  ({ metadata: { name, namespace: 'ns', uid: `u-${name}`, creationTimestamp: created, ...extra }, ...fields }) as KubeObject;
/** The server's cells, its age as ours (`10m`). */
const expected = (cells: readonly unknown[]) => cells.map((c) => (c === AGE ? '10m' : c));

describe('podCells', () => {
  const pods = listViewPods(now).map((p) =>
    stored(p.name, { spec: p.spec, status: p.status }, p.finalizer ? { deletionTimestamp: created, finalizers: ['x'] } : {}),
  );

  it.each(pods.map((p) => [p.metadata!.name!, p] as const))('should print pod %s as kube-apiserver does', (name, pod) => {
    expect(Object.values(podCells(pod, now))).toEqual(expected(LIST_VIEW_CELLS.pods[name]));
  });

  it('should print the same from the pods preset as from the whole pod', () => {
    for (const pod of pods) expect(podCells(PRESETS.pods(pod), now)).toEqual(podCells(pod, now));
  });

  it('should say Unknown for a pod being deleted on a lost node, and keep a finished pod’s phase', () => {
    const deleting = { deletionTimestamp: created };
    expect(podCells(stored('lost', { status: { phase: 'Running', reason: 'NodeLost' } }, deleting), now).Status).toBe('Unknown');
    expect(podCells(stored('gone', { status: { phase: 'Succeeded' } }, deleting), now).Status).toBe('Succeeded');
    expect(podCells({}, now)).toEqual({
      Name: '',
      Ready: '0/0',
      Status: '',
      Restarts: '0',
      Age: '<unknown>',
      IP: '<none>',
      Node: '<none>',
      'Nominated Node': '<none>',
      'Readiness Gates': '<none>',
    });
  });
});

describe('nodeCells', () => {
  it.each(listViewNodes(now).map((n) => [n.name, n] as const))('should print node %s as kube-apiserver does', (name, n) => {
    const node = stored(name, { spec: n.spec, status: n.status }, { labels: n.labels });
    expect(Object.values(nodeCells(node, now))).toEqual(expected(LIST_VIEW_CELLS.nodes[name]));
    expect(nodeCells(PRESETS.nodes(node), now)).toEqual(nodeCells(node, now));
  });
});

describe('deploymentCells', () => {
  it.each(listViewDeployments().map((d) => [d.name, d] as const))('should print deployment %s as kube-apiserver does', (name, d) => {
    // as stored: the server defaults spec.replicas to 1
    const deployment = stored(name, { spec: { replicas: 1, ...d.spec }, status: d.status });
    expect(Object.values(deploymentCells(deployment, now))).toEqual(expected(LIST_VIEW_CELLS.deployments[name]));
    expect(deploymentCells(PRESETS.deployments(deployment), now)).toEqual(deploymentCells(deployment, now));
  });

  it('should print an invalid selector as <invalid>, and a deployment without replicas as 0 wanted, as the server prints one', () => {
    const bad = { spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Maybe' }] } } };
    expect(deploymentCells(bad as never, now).Selector).toBe('<invalid>');
    expect(Object.values(deploymentCells({}, now))).toEqual(['', '0/0', 0, 0, '<unknown>', '', '', '']);
  });
});
