/**
 * What the consumer tests do to the simulator over its HTTP API, as any client would: pods created,
 * relabelled and deleted, watches dropped; and what they read back: the pods the server holds, and
 * the pods a program's `added`/`deleted` lines say it holds.
 */

const podPath = (namespace = 'default') => `/api/v1/namespaces/${namespace}/pods`;
const POD_PATH = podPath();

async function call(url: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The names of the pods in `default`, sorted. */
export async function serverPods(url: string): Promise<string[]> {
  const list = (await call(url, 'GET', POD_PATH)) as { items: { metadata: { name: string } }[] };
  return list.items.map((p) => p.metadata.name).sort();
}

/** The pods of every namespace as `namespace/name`, sorted. */
export async function serverPodKeys(url: string): Promise<string[]> {
  const list = (await call(url, 'GET', '/api/v1/pods')) as { items: { metadata: { namespace: string; name: string } }[] };
  return list.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
}

/** Creates namespace `name`. */
export function createNamespace(url: string, name: string): Promise<unknown> {
  return call(url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Creates a pod named `name` in `namespace` (default `default`). */
export function createPod(url: string, name: string, namespace = 'default'): Promise<unknown> {
  return call(url, 'POST', podPath(namespace), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'consumer-test' } },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  });
}

/** Deletes pod `name` at once (no grace period). */
export function deletePod(url: string, name: string, namespace = 'default'): Promise<unknown> {
  return call(url, 'DELETE', `${podPath(namespace)}/${name}?gracePeriodSeconds=0`);
}

/** Changes a label of pod `name` (a MODIFIED event). */
export function relabelPod(url: string, name: string, value: string, namespace = 'default'): Promise<unknown> {
  return call(url, 'PATCH', `${podPath(namespace)}/${name}`, { metadata: { labels: { round: value } } }, 'application/merge-patch+json');
}

/** Sets the phase of pod `name` through its status subresource, as the kubelet does. */
export function setPodPhase(url: string, name: string, phase: string, namespace = 'default'): Promise<unknown> {
  return call(url, 'PATCH', `${podPath(namespace)}/${name}/status`, { status: { phase } }, 'application/merge-patch+json');
}

/** Makes the next `count` requests of class `on` (`watch`, `list`, `any`…) fail with HTTP `code`. */
export function failNext(url: string, count: number, code: number, on = 'any'): Promise<unknown> {
  return call(url, 'POST', '/_sim/faults/failNext', { count, code, on });
}

/** Ends every open watch stream on the server (the informer must re-watch and lose nothing). */
export function dropWatches(url: string): Promise<unknown> {
  return call(url, 'POST', '/_sim/faults/dropWatches', {});
}

/** Round `round` of churn: `size` pods created, every third relabelled, every other one of the round before deleted. */
export async function churn(url: string, round: number, size = 12): Promise<void> {
  const names = Array.from({ length: size }, (_, i) => `pod-${round}-${i}`);
  for (const name of names) await createPod(url, name);
  for (const name of names.filter((_, i) => i % 3 === 0)) await relabelPod(url, name, String(round));
  if (round > 0) for (let i = 0; i < size; i += 2) await deletePod(url, `pod-${round - 1}-${i}`);
}

/** The pods a program holds according to its output: `added <name>` adds, `deleted <name>` removes. */
export function viewFromOutput(output: string): string[] {
  const view = new Set<string>();
  for (const line of output.split('\n')) {
    const m = /^(added|deleted) (\S+)/.exec(line);
    if (!m) continue;
    if (m[1] === 'added') view.add(m[2]);
    else view.delete(m[2]);
  }
  return [...view].sort();
}

/** Resolves once `read()` equals `expected()`, checking every 100 ms; rejects with both after `timeoutMs`. */
export async function converges(
  read: () => string[] | Promise<string[]>,
  expected: () => Promise<string[]>,
  timeoutMs = 30_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const want = await expected();
    const have = await read();
    if (JSON.stringify(have) === JSON.stringify(want)) return have;
    if (Date.now() > deadline) throw new Error(`no convergence in ${timeoutMs} ms:\n have ${have.join(' ')}\n want ${want.join(' ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
