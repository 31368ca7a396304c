/**
 * The `rxinformer-apiserver` command (also `rxinformer apiserver`, and `npm run apiserver --` in the
 * repository): runs the simulator alone on 127.0.0.1 (plain HTTP) and writes a kubeconfig.
 *
 *   rxinformer-apiserver --port 6443 [--seed 1] [--kubeconfig ./sim.kubeconfig] [--minor 33] [--token T] [--no-control-endpoints]
 *                        [--feature-gates ShardedListAndWatch=true]
 *
 * Prints the URL and the kubeconfig path; stops cleanly on SIGINT/SIGTERM.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { replacePrivateFile, writePrivateFile } from './privateFile.ts';
import { startApiServer } from './server.ts';

/** The usage text of `rxinformer-apiserver --help`. */
export const APISERVER_USAGE = `usage: rxinformer-apiserver [--port N] [--seed N] [--kubeconfig PATH] [--minor NN] [--token TOKEN] [--no-control-endpoints] [--feature-gates G=true]
  --port        TCP port on 127.0.0.1 (default 6443; 0 = any free port)
  --seed        seed of UIDs, name suffixes and fault choices (default 1)
  --kubeconfig  where to write the kubeconfig (mode 0600; a file there is replaced, a symlink refused;
                default: <tmpdir>/rxinformer-sim-XXXXXX/kubeconfig in a private directory, removed on exit)
  --minor       Kubernetes minor version reported by /version (default 33)
  --token       require this bearer token, also on the control endpoints (default: no auth)
  --control-endpoints, --no-control-endpoints
                serve GET /_sim/state and POST /_sim/faults/<name> (default: served)
  --feature-gates
                as the API server's: ShardedListAndWatch=true honours shardSelector on list and watch (default off);
                WatchList=false refuses sendInitialEvents with 422 (default on)`;

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) {
    console.error(`--${name} must be a non-negative integer, got "${value}"\n${APISERVER_USAGE}`);
    process.exit(2);
  }
  return Number(value);
}

/** `--feature-gates A=true,B=false`, the gates the simulator knows; exits with 2 on anything else. */
function featureGates(value: string | undefined): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of (value ?? '').split(',').filter((p) => p.trim() !== '')) {
    const m = /^\s*(ShardedListAndWatch|WatchList)=(true|false)\s*$/.exec(part);
    if (!m) {
      console.error(`--feature-gates: unknown or malformed gate "${part}" (known: ShardedListAndWatch, WatchList)\n${APISERVER_USAGE}`);
      process.exit(2);
    }
    gates[m[1]] = m[2] === 'true';
  }
  return gates;
}

/**
 * Writes the kubeconfig (it may carry --token) where no other local user can read it or redirect the
 * write: at the user's path by an atomic replace that refuses a symlink (the file stays on exit), or
 * in a fresh private directory (mode 0700) that is removed on exit.
 */
async function writeKubeconfig(yaml: string, userPath: string | undefined): Promise<string> {
  if (userPath !== undefined) {
    await replacePrivateFile(userPath, yaml);
    return userPath;
  }
  const { dir, path } = await writePrivateFile(yaml, { prefix: 'rxinformer-sim-' });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return path;
}

/**
 * Runs the simulator command with the command line `argv` (without `node` and the script) until
 * SIGINT or SIGTERM; exits the process with 2 on a bad command line.
 */
export async function runApiServerCommand(argv: readonly string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        seed: { type: 'string' },
        kubeconfig: { type: 'string' },
        minor: { type: 'string' },
        token: { type: 'string' },
        'control-endpoints': { type: 'boolean' },
        'no-control-endpoints': { type: 'boolean' },
        'feature-gates': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${APISERVER_USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(APISERVER_USAGE);
    return;
  }
  if (values['control-endpoints'] && values['no-control-endpoints']) {
    console.error(`--control-endpoints and --no-control-endpoints contradict each other\n${APISERVER_USAGE}`);
    process.exit(2);
  }
  const gates = featureGates(values['feature-gates']);
  const sim = await startApiServer({
    port: int('port', values.port, 6443),
    seed: int('seed', values.seed, 1),
    version: { major: '1', minor: String(int('minor', values.minor, 33)) },
    ...(values.token ? { auth: { token: values.token } } : {}),
    // A tool for kubectl and fault scripts: the control endpoints are served unless turned off.
    controlEndpoints: !values['no-control-endpoints'],
    shardedListAndWatch: gates.ShardedListAndWatch === true,
    watchList: gates.WatchList !== false,
  });
  const kubeconfig = await writeKubeconfig(sim.kubeconfigYaml(), values.kubeconfig);
  console.log(`apiserver-sim listening on ${sim.url}`);
  console.log(`kubeconfig written to ${kubeconfig}`);
  console.log(`try: kubectl --kubeconfig ${kubeconfig} get pods -A`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`received ${signal}, shutting down`);
    sim.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
