/**
 * `rxinformer hub`: one replica of the dashboard hub (`@rxinformer/hub`) in its own process, over
 * one API server (`--url`, or a kubeconfig's current context), with its own informer caches; its
 * figures for Prometheus on `--metrics-port`. Several replicas behind one Service (or any
 * round-robin proxy) serve the same tabs: a tab whose replica dies reconnects through the Service to
 * another and resumes from its resource versions, or relists.
 *
 *   rxinformer hub --kubeconfig ~/.kube/config --token-auth-file users.csv --authorize-as-hub --port 8080 --metrics-port 9090
 *
 * Prints one JSON line once listening: `{"hub":"http://host:port","metrics":"http://…","pid":…}`.
 * SIGTERM closes every connection (`bye`, then 1001: the tabs reconnect elsewhere) and exits.
 */
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { createInformerFactory, fetchListerWatcher } from '@rxinformer/core';
import { bearerTokenOf, startHub, type Authenticator, type Authorizer, type HubUser } from '@rxinformer/hub';
import { serveEndpoints } from '../endpoints.ts';
import { kubeconfigAccess, urlAccess } from '../sharded/serverAccess.ts';

export const HUB_USAGE = `rxinformer hub — one replica of the dashboard hub

  --url URL                 the API server without auth (the simulator)
  --kubeconfig PATH         the API server and the hub's own credentials (its current context)
  --token-auth-file PATH    the users: kube-apiserver's static token file (token,user,uid,"group1,group2")
  --authorize-as-hub        every authenticated user may read what the hub's credentials can read
                            (required: the hub has no other authorizer on the command line yet)
  --port N                  where tabs connect (0: any free port; default 8080), path /hub
  --host ADDR               the address to listen on (default 127.0.0.1)
  --static DIR              serve a built page on the same origin
  --origin ORIGIN           an origin allowed to connect (repeatable; default: same-origin)
  --name NAME               this replica's hub label in the metrics (default: hub-<pid>)
  --metrics-port N          serve /metrics, /readyz, /healthz on 127.0.0.1 at this port`;

/** Runs a hub replica until SIGTERM or SIGINT. */
export async function runHubCommand(argv: readonly string[]): Promise<void> {
  const { values: v } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      kubeconfig: { type: 'string' },
      'token-auth-file': { type: 'string' },
      'authorize-as-hub': { type: 'boolean' },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      static: { type: 'string' },
      origin: { type: 'string', multiple: true },
      name: { type: 'string' },
      'metrics-port': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (v.help) return void process.stdout.write(`${HUB_USAGE}\n`);
  if (!v.url === !v.kubeconfig) return usageError('give one of --url and --kubeconfig');
  if (!v['token-auth-file']) return usageError('--token-auth-file is required');
  if (!v['authorize-as-hub']) return usageError('--authorize-as-hub is required (no other authorizer is available on the command line)');
  const access = v.kubeconfig ? await kubeconfigAccess(v.kubeconfig) : urlAccess(v.url!);
  const factory = createInformerFactory((resource, scope) =>
    fetchListerWatcher({ baseUrl: access.url, headers: access.headers, fetch: access.fetch, resource, ...scope }),
  );
  const started = await startHub({
    clusters: { default: factory },
    authenticator: tokenFileAuthenticator(await readFile(v['token-auth-file'], 'utf8')),
    authorizer: AS_HUB,
    port: Number(v.port),
    host: v.host,
    ...(v.static !== undefined && { staticDir: v.static }),
    ...(v.origin && { origins: v.origin }),
  });
  const name = v.name ?? `hub-${process.pid}`;
  const endpoints =
    v['metrics-port'] !== undefined ? await serveEndpoints({ hubs: { [name]: started.hub } }, Number(v['metrics-port'])) : undefined;
  process.stdout.write(`${JSON.stringify({ hub: started.url, metrics: endpoints?.url, name, pid: process.pid })}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  endpoints?.stop.unsubscribe();
  await started.close();
  await access.close();
}

function usageError(message: string): never {
  process.stderr.write(`rxinformer hub: ${message}\n\n${HUB_USAGE}\n`);
  process.exit(2);
}

/** Every user may read what the hub may: chosen explicitly with --authorize-as-hub. */
const AS_HUB: Authorizer = { authorize: () => Promise.resolve({ allowed: true, reason: 'the hub was started with --authorize-as-hub' }) };

/**
 * The users of a kube-apiserver static token file: `token,user,uid` and optionally a quoted,
 * comma-separated list of groups; every user is also in `system:authenticated`.
 *
 * @example
 * tokenFileAuthenticator('s3cret,alice,1,"dev,ops"\n');
 */
export function tokenFileAuthenticator(text: string): Authenticator {
  const users = new Map<string, HubUser>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?\s*$/.exec(line.trim());
    if (!m) throw new Error(`token auth file, line ${i + 1}: not token,user,uid[,"groups"]`);
    const groups = (m[4] ?? '').split(',').filter(Boolean);
    users.set(m[1], { username: m[2], ...(m[3] && { uid: m[3] }), groups: [...groups, 'system:authenticated'] });
  });
  return {
    authenticate: (request) => {
      const found = bearerTokenOf(request);
      const user = found && 'token' in found ? users.get(found.token) : undefined;
      return Promise.resolve(user ? { user } : { refused: 401, message: 'the bearer token does not authenticate' });
    },
  };
}
