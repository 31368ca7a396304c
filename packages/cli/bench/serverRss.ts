/**
 * The memory of a test environment's processes, as the kernel counts it: `VmRSS` (resident now)
 * and `VmHWM` (the peak, which `resetPeak` starts again from now) from `/proc/PID/status` of its
 * kube-apiserver and etcd, found by their command lines; and a process's CPU time from
 * `/proc/PID/stat` (Linux only).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
      return { pid: Number(pid), ...memoryOf(Number(pid)) };
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return undefined;
}

/** The kube-apiserver process of `env` (by its `--secure-port`), with its memory now; undefined when not found. */
export function apiServerProcess(env: Pick<TestEnvironment, 'url'>): ProcessRss | undefined {
  const port = new URL(env.url).port;
  return processRss((argv) => argv[0].split('/').pop() === 'kube-apiserver' && argv.includes(`--secure-port=${port}`));
}

/** The resident memory of process `pid` now and at its peak (KiB), from `/proc/PID/status`. */
export function memoryOf(pid: number): { rssKiB: number; peakKiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: kib('VmRSS'), peakKiB: kib('VmHWM') };
}

/** Resets the peak (`VmHWM`) of process `pid` to its resident memory now (`/proc/PID/clear_refs`, Linux 4.0+). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The CPU time process `pid` has used, user and system, in ms (`/proc/PID/stat`'s utime + stime, at 100 ticks a second). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from the state, the 3rd field
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime: the 14th and 15th fields
}

/**
 * The memory of `env`'s kube-apiserver (by its `--secure-port`) and etcd (by its client URL).
 *
 * @example
 * const { apiServer, etcd } = environmentRss(env);
 * console.log(apiServer?.rssKiB, etcd?.rssKiB);
 */
export function environmentRss(env: Pick<TestEnvironment, 'url' | 'etcd'>): EnvironmentRss {
  return {
    apiServer: apiServerProcess(env),
    etcd: processRss((argv) => argv[0].split('/').pop() === 'etcd' && argv.includes(`--listen-client-urls=${env.etcd.url}`)),
  };
}
