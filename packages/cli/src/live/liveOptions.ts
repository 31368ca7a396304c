/**
 * The command line of the live view (`rxinformer …`, `npm start -- …` in the repository): parsed and validated into one options
 * object, or a `LiveOptionsError` whose message says what is wrong (the entry exits 2 on it).
 */
import { parseArgs } from 'node:util';
import { InvalidOptionsError, RxInformerError } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';

/** What the live view watches, where, and for how long. */
export interface LiveOptions {
  /** Where the objects come from: the embedded simulator (default) or a kubeconfig's cluster. */
  source:
    | { kind: 'simulator'; seed: number; pods: number; ratePerSecond: number; faults: boolean; faultEveryMs: number }
    /** `kubeconfig` is the `--kubeconfig` file; without it the default loading rules apply (KUBECONFIG, ~/.kube/config). */
    | { kind: 'cluster'; kubeconfig?: string; context?: string };
  /** A built-in plural (`pods`, `deployments`, `deployments.apps`) or `group/version/resource` (`v1/pods` for the core group). Default `pods`. */
  resource: string;
  /** Only this namespace. Default: all namespaces. */
  namespace?: string;
  /** Label selector, applied to list and watch. Default: none. */
  labelSelector?: string;
  /** Field selector, applied to list and watch. Default: none. */
  fieldSelector?: string;
  /** Exit after this many seconds (0.1 to 2147483, ~24.8 days: one timer) with a summary. Default: run until Ctrl-C / SIGTERM. */
  durationSeconds?: number;
  /** Seconds between counter lines when not on a terminal (0.1 to 2147483). Default 1. */
  intervalSeconds: number;
  /** Serve `/metrics`, `/readyz` and `/healthz` on this port of 127.0.0.1 (0: any free one). Default: not served. */
  metricsPort?: number;
  /** Print the usage and exit 0. */
  help: boolean;
}

/** A command-line option is missing, unknown or malformed. `reason` is `InvalidOption`. */
export class LiveOptionsError extends RxInformerError {
  /** Always `LiveOptionsError`: set as a string, so it survives minification. */
  override readonly name: string = 'LiveOptionsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('InvalidOption', message, options);
  }
}

/** The usage text printed by `--help` and after an invalid option. */
export const LIVE_USAGE = `usage: rxinformer [options]    (npm start -- [options] in the repository)

A live view of a Kubernetes resource through rxinformer's informer factory (kubectl get -w style).
Without --kubeconfig, --context or KUBECONFIG it starts the embedded API server simulator with a
seeded churn generator and injected faults.

  --resource R          what to watch: a built-in plural (pods, deployments, nodes, deployments.apps, …)
                        or group/version/resource through discovery (v1/pods, example.com/v1/widgets);
                        default pods
  -n, --namespace NS    only this namespace (default: all namespaces)
  -l, --selector SEL    label selector, e.g. app=web,tier!=db
  --field-selector SEL  field selector, e.g. status.phase=Running
  --duration S          exit 0 after S seconds (at most 2147483, ~24.8 days) with a summary
                        (default: until Ctrl-C)
  --interval S          seconds between counter lines when output is not a terminal (default 1,
                        at most 2147483)
  --metrics-port N      serve /metrics (Prometheus), /readyz and /healthz on 127.0.0.1:N
  --kubeconfig PATH     watch the cluster of this kubeconfig instead of the simulator
  --context NAME        the kubeconfig context to use (default: its current context)
  --seed N              simulator: seed of the churn and the faults (default 1)
  --pods N              simulator: pods created before the view starts (default 60)
  --rate N              simulator: changes per second (default 20)
  --fault-every S       simulator: seconds between faults, the first S seconds after it starts (default 5)
  --no-faults           simulator: inject no faults
  -h, --help            this text`;

const POSITIVE = /^(\d+(\.\d*)?|\.\d+)$/;

function number(name: string, value: string | undefined, fallback: number, integer: boolean, min: number): number {
  if (value === undefined) return fallback;
  if (!POSITIVE.test(value) || (integer && !/^\d+$/.test(value)) || Number(value) < min) {
    throw new LiveOptionsError(`--${name} must be ${integer ? 'an integer' : 'a number'} of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

/**
 * A number of seconds that one timer holds: at most 2147483 (~24.8 days); a longer one would fire
 * at once, so it is refused. Run without `--duration` to run until stopped.
 */
function seconds(name: string, value: string | undefined, fallback: number): number {
  const s = number(name, value, fallback, false, 0.1);
  try {
    return checkDuration(`--${name}`, s, fallback, { max: 'timer', unit: 's' });
  } catch (e) {
    throw e instanceof InvalidOptionsError ? new LiveOptionsError(e.message, { cause: e }) : e;
  }
}

/**
 * Parses the live view's arguments (without `node` and the script). `env.KUBECONFIG` selects a
 * cluster like `--kubeconfig` does.
 *
 * @example
 * parseLiveOptions(['--resource', 'pods', '-n', 'default', '--duration', '10'], process.env);
 *
 * Caveat: simulator options (`--seed`, `--pods`, `--rate`, `--fault-every`, `--no-faults`) with a cluster are an error,
 * not silently ignored.
 */
export function parseLiveOptions(argv: readonly string[], env: Record<string, string | undefined> = {}): LiveOptions {
  const values = parseFlags(argv);
  const resource = nonEmpty('resource', values.resource) ?? 'pods';
  if (!/^[a-z0-9.-]+$|^([a-z0-9.-]+\/)?v[0-9a-z]+\/[a-z0-9.-]+$/.test(resource)) {
    throw new LiveOptionsError(
      `--resource must be a plural name (pods, deployments.apps) or group/version/resource (v1/pods, apps/v1/deployments), got "${resource}"`,
    );
  }
  const durationSeconds = values.duration === undefined ? undefined : seconds('duration', values.duration, 0);
  const intervalSeconds = seconds('interval', values.interval, 1);
  const metricsPort = values['metrics-port'] === undefined ? undefined : number('metrics-port', values['metrics-port'], 0, true, 0);
  if (metricsPort !== undefined && metricsPort > 65_535)
    throw new LiveOptionsError(`--metrics-port must be a port (0-65535), got ${metricsPort}`);
  return {
    source: sourceOf(values, env),
    resource,
    namespace: nonEmpty('namespace', values.namespace),
    labelSelector: nonEmpty('selector', values.selector),
    fieldSelector: nonEmpty('field-selector', values['field-selector']),
    durationSeconds,
    intervalSeconds,
    ...(metricsPort !== undefined && { metricsPort }),
    help: values.help ?? false,
  };
}

/** The flags of the command line, as `parseArgs` reads them; unknown or malformed ones are a `LiveOptionsError`. */
function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        resource: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        selector: { type: 'string', short: 'l' },
        'field-selector': { type: 'string' },
        duration: { type: 'string' },
        interval: { type: 'string' },
        'metrics-port': { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        seed: { type: 'string' },
        pods: { type: 'string' },
        rate: { type: 'string' },
        'no-faults': { type: 'boolean' },
        'fault-every': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    throw new LiveOptionsError((e as Error).message, { cause: e });
  }
}

/** A flag's value, which must not be blank when given. */
function nonEmpty(name: string, v: string | undefined): string | undefined {
  if (v !== undefined && v.trim() === '') throw new LiveOptionsError(`--${name} must not be empty`);
  return v;
}

/** A cluster (from `--kubeconfig`, `--context` or `KUBECONFIG`), else the embedded simulator with its flags. */
function sourceOf(values: ReturnType<typeof parseFlags>, env: Record<string, string | undefined>): LiveOptions['source'] {
  const kubeconfig = nonEmpty('kubeconfig', values.kubeconfig);
  const context = nonEmpty('context', values.context);
  const simulatorFlags = (['seed', 'pods', 'rate', 'no-faults', 'fault-every'] as const).filter((k) => values[k] !== undefined);
  if (kubeconfig !== undefined || context !== undefined || env.KUBECONFIG) {
    if (simulatorFlags.length > 0)
      throw new LiveOptionsError(
        `--${simulatorFlags[0]} only applies to the embedded simulator, not with --kubeconfig, --context or KUBECONFIG`,
      );
    return { kind: 'cluster', kubeconfig, context };
  }
  return {
    kind: 'simulator',
    seed: number('seed', values.seed, 1, true, 0),
    pods: number('pods', values.pods, 60, true, 0),
    ratePerSecond: number('rate', values.rate, 20, false, 0),
    faults: !values['no-faults'],
    faultEveryMs: faultEvery(values['fault-every']),
  };
}

/** `--fault-every` in ms: at least 0.1 s, at most an hour (a longer timer would fire at once). */
function faultEvery(value: string | undefined): number {
  const seconds = number('fault-every', value, 5, false, 0.1);
  if (seconds > 3600) throw new LiveOptionsError(`--fault-every must be at most 3600 seconds, got "${value}"`);
  return seconds * 1000;
}
