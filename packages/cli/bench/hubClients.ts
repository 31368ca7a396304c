/**
 * Simulated dashboard tabs for `npm run bench:hub`, in a child process: `count` clients from index
 * `first`, each its own WebSocket to the hub (its own user, `token-<i>`) and a core pod informer of
 * namespace `team-<i % namespaces>` over `hubListerWatcherSource`. Speaks JSON lines:
 *
 *   stdout: {"synced": n}                        once every client's informer has synced
 *   stdin:  {"cmd": "report"}                    → {"deliveries": [[resourceVersion, receivedAtMs], …]}
 *
 * A delivery is one watch event (an update) reaching one client. Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { createInformerFactory, type InformerFactory, type UpdatedDelta } from '@rxinformer/core';
import { hubListerWatcherSource, type WebSocketConstructor } from '@rxinformer/hub/browser';
import { WebSocket } from 'undici';
import { filter } from 'rxjs';

const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as const;

function main(): void {
  const [url, first, count, namespaces] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
  const deliveries: [string, number][] = [];
  const factories: InformerFactory[] = [];
  let synced = 0;
  for (let i = first; i < first + count; i++) {
    const source = hubListerWatcherSource(url, {
      token: () => `token-${i}`,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      reconnectBackoff: { initialMs: 200, maxMs: 5000 },
    });
    const factory = createInformerFactory(source, { namespace: `team-${i % namespaces}` });
    const informer = factory.informerFor(PODS);
    informer.events$
      .pipe(filter((d): d is UpdatedDelta => d.type === 'Updated'))
      .subscribe((d) => deliveries.push([d.object.metadata?.resourceVersion ?? '', Date.now()]));
    informer.synced$.pipe(filter(Boolean)).subscribe(() => {
      if (++synced === count) process.stdout.write(`${JSON.stringify({ synced })}\n`);
    });
    factory.start();
    factories.push(factory);
  }
  const lines = createInterface({ input: process.stdin });
  lines.on('line', () => process.stdout.write(`${JSON.stringify({ deliveries })}\n`));
  lines.on('close', () => {
    for (const f of factories) f.shutdown();
    process.exit(0);
  });
}

main();
