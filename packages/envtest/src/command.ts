/**
 * The `rxinformer-envtest` command:
 *
 *   rxinformer-envtest build                     build etcd and kube-apiserver from the Go module (nothing when current)
 *   rxinformer-envtest where                     print the folder the binaries are found in
 *   rxinformer-envtest start [--feature-gates A=true,B=false] [--kubeconfig PATH]
 *                                                start both, print the URL and kubeconfig; on Ctrl-C (SIGINT)
 *                                                or SIGTERM stop both, remove their folder, then die of that signal
 */
import { copyFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildBinaries, findBinaries, moduleVersions } from './binaries.ts';
import { InvalidOptionsError } from './errors.ts';
import { startTestEnvironment } from './testEnvironment.ts';

const USAGE = `usage: rxinformer-envtest build | where | start [--feature-gates A=true,B=false] [--kubeconfig PATH]`;

/** Parses `A=true,B=false` into feature gates. */
export function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(',').filter(Boolean)) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(true|false)$/.exec(part.trim());
    if (!m) throw new InvalidOptionsError(`--feature-gates: "${part}" is not Name=true or Name=false`);
    gates[m[1]] = m[2] === 'true';
  }
  return gates;
}

/**
 * Runs the command with `argv` (without node and the script), writing to `out`. `start` resolves,
 * once both processes are stopped and their folder removed, with the signal that ended it (SIGINT or
 * SIGTERM), for the caller to die of as a program without a handler would (exit status 130 or 143).
 */
export async function runEnvtestCommand(argv: string[], out: (line: string) => void = console.log): Promise<NodeJS.Signals | void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'feature-gates': { type: 'string' }, kubeconfig: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [verb] = positionals;
  if (values.help || verb === undefined) return out(USAGE);
  if (verb === 'build') {
    const { kubernetes, etcd } = moduleVersions();
    out(`kube-apiserver ${kubernetes} and etcd ${etcd}: built unless current (minutes the first time)...`);
    const result = await buildBinaries();
    return out(result.built ? `built in ${(result.ms / 1000).toFixed(0)} s: ${result.dir}` : `current: ${result.dir}`);
  }
  if (verb === 'where') {
    const found = findBinaries();
    return out(`${found.kubeApiServer}\n${found.etcd}\n(from ${found.from})`);
  }
  if (verb !== 'start') throw new InvalidOptionsError(`unknown command "${verb}"\n${USAGE}`);
  const env = await startTestEnvironment({ featureGates: parseFeatureGates(values['feature-gates'] ?? '') });
  if (values.kubeconfig) copyFileSync(env.kubeconfigPath, values.kubeconfig);
  out(`kube-apiserver ${env.url} is ready (etcd ${env.etcd.url})`);
  out(`KUBECONFIG=${values.kubeconfig ?? env.kubeconfigPath}`);
  out(`logs: ${env.logs.apiServer} ${env.logs.etcd}`);
  out('Ctrl-C stops both and removes their files');
  const signal = await firstSignal('SIGINT', 'SIGTERM');
  await env.stop();
  return signal;
}

/** Resolves with the first of `signals` this process gets; then none of them has a handler here any more. */
function firstSignal(...signals: NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const got = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, got);
      resolve(signal);
    };
    for (const s of signals) process.on(s, got);
  });
}
