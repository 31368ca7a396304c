/**
 * The memory of a test environment's processes, as the kernel counts it: `VmRSS` (resident now)
 * and `VmHWM` (the peak) from `/proc/PID/status` of its kube-apiserver and etcd, found by their
 * command lines (Linux only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { TestEnvironment } from '@rxinformer/envtest';

/** One process's resident memory in KiB: now and at its peak. */
export interface ProcessRss {
  pid: number;
  rssKiB: number;
  peakKiB: number;
}

/** The two processes of an environment (undefined where not found, e.g. not on Linux). */
export interface EnvironmentRss {
  apiServer?: ProcessRss;
  etcd?: ProcessRss;
}

/** The first process whose argv `match` accepts, with its memory; undefined when none. */
export function processRss(match: (argv: string[]) => boolean): ProcessRss | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined; // no /proc here
  }
  for (const pid of pids) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv.length === 0 || !match(argv)) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { pid: Number(pid), rssKiB: kib('VmRSS'), peakKiB: kib('VmHWM') };
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return undefined;
}

/**
 * The memory of `env`'s kube-apiserver (by its `--secure-port`) and etcd (by its client URL).
 *
 * @example
 * const { apiServer, etcd } = environmentRss(env);
 * console.log(apiServer?.rssKiB, etcd?.rssKiB);
 */
export function environmentRss(env: Pick<TestEnvironment, 'url' | 'etcd'>): EnvironmentRss {
  const binary = (argv: string[], name: string) => argv[0].split('/').pop() === name;
  const port = new URL(env.url).port;
  return {
    apiServer: processRss((argv) => binary(argv, 'kube-apiserver') && argv.includes(`--secure-port=${port}`)),
    etcd: processRss((argv) => binary(argv, 'etcd') && argv.includes(`--listen-client-urls=${env.etcd.url}`)),
  };
}
