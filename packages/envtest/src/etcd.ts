/**
 * etcd for a test environment: one member on loopback ports, `--unsafe-no-fsync`, and the two
 * calls a test needs of it over its JSON gateway (`/v3/kv/...`) — the current revision, and a
 * compaction to it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EnvtestError } from './errors.ts';
import { startManagedProcess, type ManagedProcess } from './managedProcess.ts';
import { freePort, waitUntilReady } from './readiness.ts';

/** A running etcd. */
export interface Etcd {
  /** Its client URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Its process. */
  readonly process: ManagedProcess;
  /** The store's current revision (the resourceVersion of the last write). */
  readonly revision: () => Promise<number>;
  /**
   * Compacts the history up to the current revision as kube-apiserver's own compactor does: the
   * revision is written to `compact_rev_key` (which every kube-apiserver watches to learn of
   * compactions), then etcd compacts physically. Resolves to that revision.
   */
  readonly compact: () => Promise<number>;
}

/** Starts etcd with its data in `dir` and its log in `logFile`; resolves once `/health` answers true. */
export async function startEtcd(binary: string, dir: string, logFile: string, cleanupDir: string, timeoutMs: number): Promise<Etcd> {
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  mkdirSync(dir, { recursive: true });
  const args = [
    '--name=envtest',
    `--data-dir=${join(dir, 'data')}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=envtest=${peerUrl}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
  const proc = startManagedProcess('etcd', binary, args, logFile, cleanupDir);
  try {
    await waitUntilReady(proc, async () => health(url), timeoutMs, [client, peer]);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  const revision = async () => Number((await call(url, 'range', { key: Buffer.from('\0').toString('base64') })).header.revision);
  return {
    url,
    process: proc,
    revision,
    compact: async () => {
      const rev = await revision();
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      await call(url, 'put', { key: b64('compact_rev_key'), value: b64(String(rev)) });
      await call(url, 'compaction', { revision: rev, physical: true });
      return rev;
    },
  };
}

async function health(url: string): Promise<string | undefined> {
  const res = await fetch(`${url}/health`);
  const body = await res.text();
  return res.ok && /"health":\s*"true"/.test(body) ? undefined : `${res.status} ${body.slice(0, 200)}`;
}

interface EtcdAnswer {
  header: { revision: string };
}

/** One call of etcd's KV API through its JSON gateway (`POST /v3/kv/<method>`). */
async function call(url: string, method: string, body: object): Promise<EtcdAnswer> {
  const res = await fetch(`${url}/v3/kv/${method}`, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new EnvtestError('EtcdError', `etcd ${method} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as EtcdAnswer;
}
