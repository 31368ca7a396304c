/**
 * Probes of the command line's duration flags: each parses one flag (the commands refuse a value
 * out of range before they start anything). The parsers are the CLI's own modules, loaded by path:
 * the CLI has no API of its own to import them from.
 */
import type * as Hub from '../../../packages/cli/src/hub/hubArgs.ts';
import type * as Live from '../../../packages/cli/src/live/liveOptions.ts';
import type * as Sharded from '../../../packages/cli/src/sharded/shardedMain.ts';
import type * as Soak from '../../../packages/cli/src/soak/soakArgs.ts';
import type { Probe } from './probe.ts';

const cli = (module: string): Promise<unknown> => import(new URL(`../../../packages/cli/src/${module}`, import.meta.url).href);

const live = (await cli('live/liveOptions.ts')) as typeof Live;
const sharded = (await cli('sharded/shardedMain.ts')) as typeof Sharded;
const soak = (await cli('soak/soakArgs.ts')) as typeof Soak;
const hub = (await cli('hub/hubArgs.ts')) as typeof Hub;

export const { LIVE_USAGE, LiveOptionsError } = live;
export const { SHARDED_USAGE, ShardedArgsError } = sharded;
export const { SOAK_USAGE, SoakArgsError } = soak;
export const { HUB_USAGE, HubArgsError } = hub;

/** `rxinformer <flag> <value>` (the live view), `rxinformer soak …`, `rxinformer demo-sharded …` or `rxinformer hub …`, parsed. */
export const flag =
  (command: 'live' | 'soak' | 'demo-sharded' | 'hub', name: string): Probe =>
  (value) => {
    const argv = [name, String(value)];
    if (command === 'live') live.parseLiveOptions(argv);
    else if (command === 'soak') soak.parseSoakArgs(argv);
    else if (command === 'hub') hub.parseHubArgs(['--url', 'http://127.0.0.1:9', '--token-review', '--subject-access-review', ...argv]);
    else sharded.parseShardedArgs(argv);
    return { fired: () => false, stop: () => {} };
  };
