/**
 * The command line of `rxinformer soak` (`npm run soak --` in the repository): `--runs N [--json]
 * [--server sim|real] [--objects 2000] [--seed S] [--chaos-seconds 40] [--deadline-seconds 60]
 * [--rate 200] [--only rxinformer|clientNode]`.
 */
import { InvalidOptionsError, RxInformerError } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import type { SoakOptions } from './soak.ts';

/** A command line the soak cannot run; `reason` is `InvalidSoakArgs`. */
export class SoakArgsError extends RxInformerError {
  /** Always `SoakArgsError`: set as a string, so it survives minification. */
  override readonly name: string = 'SoakArgsError';
  constructor(message: string) {
    super('InvalidSoakArgs', message);
  }
}

/** The parsed command line. */
export interface SoakArgs {
  options: SoakOptions;
  json: boolean;
  /** `--help`: print `SOAK_USAGE` and run nothing. */
  help: boolean;
}

/** The usage text of `rxinformer soak --help` and of a bad command line. */
export const SOAK_USAGE = `usage: rxinformer soak [options]

The chaos soak: rxinformer and client-node's makeInformer, side by side, against the embedded API
server simulator while it drops watches, fails requests, expires resource versions, compacts its
history and recreates objects under their old names — or, with --server real, against a real
kube-apiserver and etcd (@rxinformer/envtest's binaries: npx rxinformer-envtest build) behind a
fault proxy that cuts, resets and stalls watches, delays and fails requests, while etcd is
compacted and kube-apiserver killed and restarted. A run passes when every view converges to the
server's state in time and every UID change reached the handlers as a delete and an add.
Exit 0 when every rxinformer run passed, 1 when one did not, 2 for a bad command line.

  --runs N               runs (default 1)
  --json                 one JSON object on stdout instead of a table
  --server KIND          sim (default): the simulator; real: kube-apiserver and etcd
  --objects N            pods created before the chaos starts (default 2000; real: 1000)
  --seed S               seed of the churn and the faults (default 1)
  --chaos-seconds S      how long faults are injected (default 40; at most 2147483)
  --deadline-seconds S   how long the views may take to converge after the chaos (default 60;
                         at most 2147483)
  --rate N               changes per second during the chaos (default 200; real: 50)
  --only LIB             soak only rxinformer or only clientNode
  -h, --help             this text`;

/** `value` seconds, refused (`SoakArgsError`) past what one timer holds: 2147483 s, ~24.8 days. */
function seconds(flag: string, value: number): number {
  try {
    return checkDuration(flag, value, value, { max: 'timer', unit: 's' });
  } catch (e) {
    throw e instanceof InvalidOptionsError ? new SoakArgsError(e.message) : e;
  }
}

/**
 * Parses the soak's arguments; throws `SoakArgsError` for an unknown flag or a bad value.
 *
 * @example
 * parseSoakArgs(['--runs', '3', '--json']); // { options: { runs: 3 }, json: true, help: false }
 */
export function parseSoakArgs(argv: readonly string[]): SoakArgs {
  const options: SoakOptions = {};
  let json = false;
  let help = false;
  const number = (flag: string, raw: string | undefined, min: number, integer = true): number => {
    const value = Number(raw);
    if (raw === undefined || raw.trim() === '' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new SoakArgsError(
        `${flag} needs ${integer ? 'an integer' : 'a number'} >= ${min}, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`,
      );
    }
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => argv[++i];
    switch (flag) {
      case '--json':
        json = true;
        break;
      case '-h':
      case '--help':
        help = true;
        break;
      case '--runs':
        options.runs = number(flag, value(), 1);
        break;
      case '--objects':
        options.objects = number(flag, value(), 1);
        break;
      case '--seed':
        options.seed = number(flag, value(), 0);
        break;
      case '--chaos-seconds':
        options.chaosMs = seconds(flag, number(flag, value(), 0.1, false)) * 1000;
        break;
      case '--deadline-seconds':
        options.convergeTimeoutMs = seconds(flag, number(flag, value(), 1, false)) * 1000;
        break;
      case '--rate':
        options.churnPerSecond = number(flag, value(), 1, false);
        break;
      case '--server': {
        const kind = value();
        if (kind !== 'sim' && kind !== 'real') throw new SoakArgsError(`--server takes sim or real, got ${JSON.stringify(kind)}`);
        options.server = kind;
        break;
      }
      case '--only': {
        const lib = value();
        if (lib !== 'rxinformer' && lib !== 'clientNode')
          throw new SoakArgsError(`--only takes rxinformer or clientNode, got ${JSON.stringify(lib)}`);
        options.libraries = [lib];
        break;
      }
      default:
        throw new SoakArgsError(`unknown argument ${JSON.stringify(flag)}\n${SOAK_USAGE}`);
    }
  }
  return { options, json, help };
}
