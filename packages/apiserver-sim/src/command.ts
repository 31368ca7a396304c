/**
 * The `rxinformer-apiserver` command (also `rxinformer apiserver`, and `npm run apiserver --` in the
 * repository): runs the simulator alone on 127.0.0.1 (plain HTTP) and writes a kubeconfig.
 *
 *   rxinformer-apiserver --port 6443 [--seed 1] [--kubeconfig ./sim.kubeconfig] [--minor 33] [--token T]
 *
 * Prints the URL and the kubeconfig path; stops cleanly on SIGINT/SIGTERM.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './server.ts';

/** The usage text of `rxinformer-apiserver --help`. */
export const APISERVER_USAGE = `usage: rxinformer-apiserver [--port N] [--seed N] [--kubeconfig PATH] [--minor NN] [--token TOKEN]
  --port        TCP port on 127.0.0.1 (default 6443; 0 = any free port)
  --seed        seed of UIDs, name suffixes and fault choices (default 1)
  --kubeconfig  where to write the kubeconfig (default <tmpdir>/rxinformer-sim-<port>.kubeconfig)
  --minor       Kubernetes minor version reported by /version (default 33)
  --token       require this bearer token (default: no auth)`;

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) {
    console.error(`--${name} must be a non-negative integer, got "${value}"\n${APISERVER_USAGE}`);
    process.exit(2);
  }
  return Number(value);
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
  const sim = await startApiServer({
    port: int('port', values.port, 6443),
    seed: int('seed', values.seed, 1),
    version: { major: '1', minor: String(int('minor', values.minor, 33)) },
    ...(values.token ? { auth: { token: values.token } } : {}),
  });
  const kubeconfig = values.kubeconfig ?? join(tmpdir(), `rxinformer-sim-${sim.port}.kubeconfig`);
  // A kubeconfig of our own choosing is removed on exit (it may carry --token); one at a path the
  // user gave stays.
  if (values.kubeconfig === undefined) process.on('exit', () => rmSync(kubeconfig, { force: true }));
  await sim.writeKubeconfig(kubeconfig);
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
