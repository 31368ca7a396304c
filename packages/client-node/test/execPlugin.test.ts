/**
 * Exec credential plugins (`client.authentication.k8s.io/v1`) that misbehave, as real scripts each
 * of which appends its pid to a file when it starts: one that hangs, one that prints garbage (a
 * bare token), one that exits non-zero, one that prints without end, and one whose token the
 * server refuses until it changes. Each gives a clear, typed error in bounded time, one run serves
 * every informer waiting for it, no plugin outlives its run, and the informers recover on their own.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { ReflectorStatus } from '@rxinformer/core';
import {
  configMaps,
  CredentialError,
  createKubeInformerFactory,
  createKubeTransport,
  ExecPluginError,
  pods,
  services,
} from '../src/index.ts';
import { waitFor } from './simHarness.ts';

const TOKEN = 'good-token';
const PRINTED = 'SEKRET-PRINTED-BY-THE-PLUGIN';
let dir: string;
let sim: ApiServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxinformer-exec-'));
  sim = await startApiServer({ port: 0, auth: { token: TOKEN } });
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const credential = (token: string) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
const behaviours = {
  hang: 'exec sleep 1000',
  garbage: `echo "token: ${PRINTED}"`,
  fail: 'echo "boom: the identity provider is down" >&2; exit 3',
  flood: 'exec yes',
  fromFile: `printf '%s' "$(cat ${'"$DIR/token"'})"`,
};

/** A plugin script of `behaviour`, and the pids of its runs. */
function plugin(name: keyof typeof behaviours): { command: string; runs: () => number[] } {
  const command = join(dir, `plugin-${name}.sh`);
  const log = join(dir, `runs-${name}.log`);
  writeFileSync(command, `#!/bin/sh\necho $$ >> '${log}'\n${behaviours[name]}\n`);
  chmodSync(command, 0o755);
  const runs = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(Number) : []);
  return { command, runs };
}

/** A KubeConfig of the simulator whose user's credentials come from `command`. */
function execKubeConfig(command: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'sim', server: sim.url, skipTLSVerify: true }],
    users: [
      {
        name: 'plugin-user',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command,
          args: [],
          env: [{ name: 'DIR', value: dir }],
          interactiveMode: 'Never',
        },
      },
    ],
    contexts: [{ name: 'sim', cluster: 'sim', user: 'plugin-user' }],
    currentContext: 'sim',
  });
  return kc;
}

/** Three informers of one factory until each has failed once; a second attempt would wait 60 s. */
async function firstFailures(kc: KubeConfig): Promise<Error[]> {
  const transport = createKubeTransport(kc, { execTimeoutMs: 300 });
  const factory = createKubeInformerFactory(kc, { transport });
  const backoff = { initialMs: 60_000, maxMs: 60_000 };
  const failures: Error[] = [];
  try {
    for (const resource of [pods, configMaps, services]) {
      let failed = false;
      factory.informerFor(resource, { reflector: { backoff } }).status$.subscribe((s: ReflectorStatus) => {
        if (!failed && s.phase === 'backingOff' && s.lastError) failures.push(s.lastError);
        failed ||= s.phase === 'backingOff';
      });
    }
    factory.start();
    expect(await waitFor(() => failures.length === 3)).toBe(true);
    return failures;
  } finally {
    await factory.close();
    await transport.close();
  }
}

const isGone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

describe('informers whose exec credential plugin misbehaves', () => {
  it.each([
    ['hangs', 'hang', 'ExecPluginTimeout', /gave no answer within 300 ms; killed/],
    ['prints no JSON (a bare token)', 'garbage', 'ExecPluginOutput', /printed no JSON \(\d+ characters, not shown/],
    ['exits with an error', 'fail', 'ExecPluginExited', /exited with code 3: boom: the identity provider is down/],
    ['prints without end', 'flood', 'ExecPluginOutput', /printed more than 1048576 bytes; killed/],
  ] as const)(
    'should fail every informer with one run of a plugin that %s, typed, and leave no process',
    async (_what, name, reason, message) => {
      const { command, runs } = plugin(name);
      const failures = await firstFailures(execKubeConfig(command));
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(CredentialError);
        expect(failure.cause).toBeInstanceOf(ExecPluginError);
        expect(failure.cause).toMatchObject({ reason, command });
        expect(failure.message).toMatch(message);
        expect(failure.message).not.toContain(PRINTED);
      }
      expect(runs()).toHaveLength(1); // one run for the three informers, none again before the backoff
      expect(await waitFor(() => isGone(runs()[0]))).toBe(true);
    },
  );

  it('should run the plugin again when the server refuses its token, and sync once it gives a good one', async () => {
    const { command, runs } = plugin('fromFile');
    writeFileSync(join(dir, 'token'), credential('stale-token'));
    const factory = createKubeInformerFactory(execKubeConfig(command));
    try {
      const informer = factory.informerFor(pods, { reflector: { backoff: { initialMs: 50, maxMs: 200 } } });
      const statuses: ReflectorStatus[] = [];
      informer.status$.subscribe((s) => statuses.push(s));
      factory.start();
      expect(await waitFor(() => statuses.some((s) => (s.lastError as { code?: number } | undefined)?.code === 401))).toBe(true);
      writeFileSync(join(dir, 'token'), credential(TOKEN));
      await factory.waitForCacheSync();
      expect(runs().length).toBeGreaterThanOrEqual(2);
    } finally {
      await factory.close();
    }
  });
});
