/**
 * The CRDs of `npm run bench:http2`: `Widget0` … `WidgetN-1` in the group `bench.rxinformer.io`,
 * namespaced, each holding a few objects in the namespace `bench`; made through the API of a real
 * kube-apiserver and waited for until discovery serves them all.
 */
import type { TestApi } from '@rxinformer/testing/servers';

/** The transports measured: HTTP/1.1 (an undici Agent, the transport's fallback), undici's own HTTP/2, ours on node:http2. */
export type Http2Transport = 'http1' | 'undici-h2' | 'node-h2';

export const BENCH_GROUP = 'bench.rxinformer.io';
export const BENCH_NAMESPACE = 'bench';

/** The names of CRD `i`, as `defineResource` takes them. */
export function crdNames(count: number): { group: string; version: string; resource: string; kind: string }[] {
  return Array.from({ length: count }, (_, i) => ({ group: BENCH_GROUP, version: 'v1', resource: `widget${i}s`, kind: `Widget${i}` }));
}

function crd(names: ReturnType<typeof crdNames>[number]) {
  const schema = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.resource}.${BENCH_GROUP}` },
    spec: {
      group: BENCH_GROUP,
      scope: 'Namespaced',
      names: { plural: names.resource, singular: names.resource.slice(0, -1), kind: names.kind, listKind: `${names.kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

/** Runs `work` on each item, `inFlight` at a time. */
async function inBatches<T>(items: T[], inFlight: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Creates `count` CRDs, waits until discovery lists them all, then `perCrd` objects of each (a CRD's
 * objects are refused for a moment after it is established: each create is tried again then).
 * Resolves with the time it took.
 */
export async function createBenchCrds(api: TestApi, count: number, perCrd: number, progress: (line: string) => void): Promise<number> {
  const started = performance.now();
  const names = crdNames(count);
  await inBatches(names, 8, async (n) => void (await api.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(n))));
  progress(`${count} CRDs created; waiting for discovery to serve them`);
  for (;;) {
    const served = await api.find<{ resources?: unknown[] }>(`/apis/${BENCH_GROUP}/v1`);
    if ((served?.resources?.length ?? 0) >= count) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } });
  const objects = names.flatMap((n) => Array.from({ length: perCrd }, (_, j) => ({ n, name: `w${j}` })));
  await inBatches(objects, 16, async ({ n, name }) => {
    const body = { apiVersion: `${BENCH_GROUP}/v1`, kind: n.kind, metadata: { name }, spec: { size: name.length, note: 'x'.repeat(200) } };
    for (let attempt = 0; ; attempt++) {
      const answer = await api.call('POST', `/apis/${BENCH_GROUP}/v1/namespaces/${BENCH_NAMESPACE}/${n.resource}`, body);
      if (answer.status < 300) return;
      if (attempt >= 20) throw new Error(`creating ${n.kind} ${name}: HTTP ${answer.status}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  progress(`${objects.length} objects created`);
  return performance.now() - started;
}
