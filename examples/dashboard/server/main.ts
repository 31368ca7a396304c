/**
 * The dashboard's server: the built page (Vite's `dist/`) and the hub on one origin. The hub reads
 * the cluster with the kubeconfig's credentials, one list and one watch per kind for every tab, and
 * shows each user (by their bearer token) only what RBAC lets them list and watch.
 *
 *   node server/main.ts --kubeconfig ~/.kube/config      # your cluster
 *   node server/main.ts --sim                             # the embedded simulator, with sample objects
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { startHub, subjectAccessReviewAuthorizer, tokenReviewAuthenticator, type HubMetrics } from '@rxinformer/hub';
import { writeSample } from './sample.ts';
import { parseTokenFile } from './tokens.ts';

const USAGE = `Usage: node server/main.ts [--kubeconfig FILE] [--context NAME] | --sim [--tokens FILE]
  --kubeconfig FILE      the cluster to show (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME         the kubeconfig's context (default: its current one)
  --sim                  an embedded API server simulator with sample objects instead (its
                         kubeconfig written to sim.kubeconfig)
  --tokens FILE          the simulator's users: token,user,uid,"group1,group2" lines (default: one
                         user "demo" in system:masters, signed in by the address printed)
  --port N               where the page and the hub listen (default 8080; 0: any free port)
  --host ADDRESS         (default 127.0.0.1)
  --recheck-seconds N    how long a decision is kept before open streams are re-authorized (default 10)
  --metrics-seconds N    how often to print the hub's figures (default 30; 0: never)`;

const { values: args } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    sim: { type: 'boolean', default: false },
    tokens: { type: 'string' },
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' },
    'recheck-seconds': { type: 'string', default: '10' },
    'metrics-seconds': { type: 'string', default: '30' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const kc = new KubeConfig();
let sim: ApiServer | undefined;
let signIn = '';
if (args.sim) {
  // The simulator authenticates its users' tokens (TokenReview) and authorizes them by its RBAC
  // objects, as a cluster does; the hub reads it with the admin token of its kubeconfig.
  let users = args.tokens === undefined ? [] : parseTokenFile(readFileSync(args.tokens, 'utf8'), args.tokens);
  if (args.tokens === undefined) {
    const token = randomBytes(18).toString('base64url');
    users = [{ token, username: 'demo', groups: ['system:masters'] }];
    signIn = `#token=${token}`;
  }
  sim = await startApiServer({ port: 0, auth: { token: randomBytes(18).toString('base64url'), users } });
  const written = writeSample(sim);
  await sim.writeKubeconfig('sim.kubeconfig');
  kc.loadFromString(sim.kubeconfigYaml());
  console.log(`simulator at ${sim.url} with ${written} sample objects (kubectl --kubeconfig sim.kubeconfig)`);
} else {
  if (args.kubeconfig !== undefined) kc.loadFromFile(args.kubeconfig);
  else kc.loadFromDefault();
  if (args.context !== undefined) kc.setCurrentContext(args.context);
  console.log(`cluster ${kc.getCurrentCluster()?.server ?? '?'} (context ${kc.getCurrentContext()})`);
}
// Each tab's token reviewed by the cluster (TokenReview), each subscription decided by a
// SubjectAccessReview of its list or watch; decisions kept --recheck-seconds, then open streams re-checked.
const client = kubeApiClient(kc);
const recheckMs = seconds('recheck-seconds') * 1000;
const authenticator = tokenReviewAuthenticator(client);
const authorizer = subjectAccessReviewAuthorizer(client, { allowTtlMs: recheckMs, denyTtlMs: recheckMs, recheckIntervalMs: recheckMs });

const factory = createKubeInformerFactory(kc);
const metricsMs = seconds('metrics-seconds') * 1000;
const started = await startHub({
  clusters: { default: factory },
  authenticator,
  authorizer,
  staticDir: fileURLToPath(new URL('../dist', import.meta.url)),
  port: Number(args.port),
  host: args.host,
  log: (level, message, fields) => console[level](`hub: ${message}`, fields),
  ...(metricsMs > 0 && { metricsIntervalMs: metricsMs }),
});
console.log(`dashboard at ${started.url}/${signIn}`);
const metrics = metricsMs > 0 ? started.hub.metrics$.subscribe((m) => console.log(describe(m))) : undefined;

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    metrics?.unsubscribe();
    void started
      .close()
      .then(() => factory.close())
      .then(() => sim?.close())
      .then(() => process.exit(0));
  });

/** The hub's figures in one line. */
function describe(m: HubMetrics): string {
  const { allowed, denied } = m.decisions;
  return (
    `hub: ${m.clients} clients · ${m.subscriptions} streams · ${m.informers} API server watches · ` +
    `${(m.bytesSent / 1e6).toFixed(1)} MB sent · decisions ${allowed.fresh + allowed.cached} allowed, ${denied.fresh + denied.cached} denied`
  );
}

function seconds(name: 'recheck-seconds' | 'metrics-seconds'): number {
  const n = Number(args[name]);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && name === 'recheck-seconds')) {
    console.error(`--${name} must be a number of seconds${name === 'metrics-seconds' ? ' (0: never)' : ' > 0'}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}
