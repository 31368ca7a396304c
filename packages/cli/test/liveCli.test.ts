import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startApiServer, writeKubeconfigFile, type ApiServer } from '@rxinformer/apiserver-sim';
import { pod } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { killAll, main, node, root, run, startCli, tracked } from './cliProcess.ts';

// The live view (`npm start`) as a user runs it (cliProcess.ts), against its embedded simulator or a
// simulator started here through --kubeconfig.
const eventLines = (out: string, type: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith(`${type} `))
    .map((l) => l.split(/\s+/).slice(0, 4).join(' '));

afterAll(killAll);

describe('the rxinformer command (packages/cli/src/main.ts; npm start)', () => {
  it('should watch the embedded simulator through churn and a fault, then exit 0 with a summary after --duration, in plain lines', async () => {
    // A fault every second from the simulator's start: several come before the end, however slowly
    // a busy machine starts the simulator (the default, every 5 s, left one second to spare).
    const r = await run(['--duration', '8', '--pods', '1100', '--seed', '3', '--fault-every', '1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const url = /simulator running at (http:\/\/127\.0\.0\.1:\d+)/.exec(r.stdout);
    expect(url).not.toBeNull();
    expect(r.stdout).toMatch(/^EVENT\s+NAMESPACE\s+NAME\s+STATUS\s+AGE$/m);
    // The initial list streams (a watch with sendInitialEvents: no pages to count; liveRender's
    // tests show a paged list's progress); the churn is already running: about 1100. (A counter
    // line, or the first fault, may come between them on a busy machine.)
    const withoutCounters = r.stdout.replace(/^(\[[\d.]+s\] cached=|fault injected: ).*\n/gm, '');
    expect(withoutCounters).toMatch(/^initial list: loading…\nsynced: 1\d{3} objects listed in/m);
    const added = eventLines(r.stdout, 'ADDED');
    expect(added.length).toBeGreaterThanOrEqual(1050);
    expect(added.filter((l) => !/^ADDED (default|team-a|team-b) web-\d{6} (Pending|Running|Succeeded|Failed)$/.test(l))).toEqual([]);
    expect(eventLines(r.stdout, 'MODIFIED').length).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^fault injected: /m);
    expect(r.stdout).toMatch(/^\[\d+(\.\d)?s\] cached=\d+ \| events\/s=[\d.]+ \| added=\d+ .*\| handler view lag=/m);
    expect(r.stdout).toMatch(
      /^stopped \(8s elapsed\)\nsummary: ran [\d.]+s, \d+ objects cached\nevents: ADDED=\d+ MODIFIED=\d+ DELETED=\d+ .*\nrelists=\d+ reflector errors=\d+.* faults injected=[1-9]\d*/m,
    );
    expect(r.stdout).not.toMatch(/\u001b/); // never an escape code when not a terminal
    const kubeconfig = /kubeconfig: (\S+)/.exec(r.stdout)![1];
    expect(existsSync(kubeconfig)).toBe(false); // removed on shutdown, with its private directory
    expect(existsSync(dirname(kubeconfig))).toBe(false);
  });

  // util-linux `script` gives the CLI a real pseudo-terminal of 20 rows × 90 columns.
  const hasScript = existsSync('/usr/bin/script');
  (hasScript ? it : it.skip)(
    'should redraw a screen sized to the terminal in place on a TTY, then restore it and print the summary',
    async () => {
      const command = `stty rows 20 cols 90; exec '${node}' '${main}' --duration 1.5 --pods 40 --rate 10`;
      const child = tracked(
        spawn('/usr/bin/script', ['-qfec', command, '/dev/null'], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, KUBECONFIG: '' },
        }),
      );
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(code).toBe(0);
      const enter = out.indexOf('\u001b[?1049h\u001b[?25l');
      const leave = out.indexOf('\u001b[?25h\u001b[?1049l');
      expect(enter).toBeGreaterThan(0);
      expect(leave).toBeGreaterThan(enter);
      const frames = out.slice(enter, leave).split('\u001b[H').slice(2); // after the clear, one chunk per frame
      expect(frames.length).toBeGreaterThanOrEqual(3);
      for (const frame of frames) {
        const lines = frame.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\r\n');
        expect(lines.length).toBeLessThanOrEqual(20);
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
      }
      const last = frames
        .at(-1)!
        .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
        .split('\r\n');
      expect(last[0]).toMatch(/^rxinformer live: pods in all namespaces/);
      expect(last).toHaveLength(20); // 40 pods fill the screen
      expect(last.find((l) => l.startsWith('NAMESPACE'))).toMatch(/^NAMESPACE\s+NAME\s+STATUS\s+AGE\s+LAST EVENT$/);
      expect(out.slice(leave)).toMatch(/stopped \(1.5s elapsed\)\r\nsummary: ran [\d.]+s, \d+ objects cached/);
    },
  );

  it('should serve the informer for Prometheus and the probes with --metrics-port', async () => {
    const cli = startCli(['--metrics-port', '0', '--pods', '30', '--rate', '5', '--no-faults']);
    let out = '';
    cli.child.stdout!.on('data', (d: string) => (out += d));
    await cli.waitFor(/serving http:\/\/127\.0\.0\.1:\d+\/metrics/);
    await cli.waitFor(/^synced: /m);
    const base = /serving (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(out)?.[1] ?? /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
    expect(await (await fetch(`${base}/readyz`)).text()).toBe('ok\n');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^rxinformer_informer_synced\{informer="v1\/pods"\} 1$/m);
    expect(metrics).toMatch(/^rxinformer_informer_objects\{informer="v1\/pods"\} \d+$/m);
    expect(metrics).toMatch(/^process_cpu_user_seconds_total /m);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });

  it('should shut down cleanly on SIGTERM with the summary', async () => {
    const cli = startCli(['--pods', '5', '--rate', '0', '--no-faults']);
    await cli.waitFor(/^synced: 5 objects/m);
    cli.child.kill('SIGTERM');
    const r = await cli.exit;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^stopped \(SIGTERM\)\nsummary: ran [\d.]+m?s, 5 objects cached/m);
  });

  it('should stop gracefully and exit 0, removing its kubeconfig, when the reader of its output goes away (| head)', async () => {
    const cli = startCli(['--duration', '20', '--pods', '50']);
    await cli.waitFor(/^watching pods in all namespaces$/m);
    cli.child.stdout!.destroy(); // as `head -3` does after its third line
    const r = await cli.exit;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const kubeconfig = /kubeconfig: (\S+)/.exec(r.stdout)![1];
    expect(existsSync(kubeconfig)).toBe(false);
  });

  describe('against an API server that accepts connections but never answers', () => {
    let silent: ReturnType<typeof createServer>;
    const sockets = new Set<Socket>();
    let dir: string;
    let kubeconfig: string;
    beforeAll(async () => {
      silent = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      }); // accepts, reads, never writes
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      dir = mkdtempSync(join(tmpdir(), 'rxinformer-live-silent-'));
      kubeconfig = join(dir, 'kubeconfig');
      await writeKubeconfigFile(kubeconfig, { server: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it('should count --duration from the start, stopping a discovery that hangs, and exit 0', async () => {
      const r = await run(['--kubeconfig', kubeconfig, '--resource', 'example.com/v1/widgets', '--duration', '1']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^stopped \(1s elapsed\) before the view had started$/m);
    }, 20_000);

    it('should stop on Ctrl-C while discovery hangs, and exit 0', async () => {
      const cli = startCli(['--kubeconfig', kubeconfig, '--resource', 'example.com/v1/widgets']);
      await cli.waitFor(/^watching context /m);
      cli.child.kill('SIGINT');
      const r = await cli.exit;
      expect([r.code, r.signal]).toEqual([0, null]);
      expect(r.stdout).toMatch(/^stopped \(SIGINT\) before the view had started$/m);
    }, 20_000);
  });

  describe('against an API server with unusual discovery answers', () => {
    let api: ReturnType<typeof createHttpServer>;
    let dir: string;
    let kubeconfig: string;
    beforeAll(async () => {
      api = createHttpServer((req, res) => {
        if (req.url === '/apis/metrics.k8s.io/v1beta1') {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              kind: 'APIResourceList',
              groupVersion: 'metrics.k8s.io/v1beta1',
              resources: [{ name: 'pods', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }],
            }),
          );
        } else {
          res.setHeader('content-type', 'text/html');
          res.end('<html><body>Sign in to continue</body></html>'); // a gateway in the way
        }
      });
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
      dir = mkdtempSync(join(tmpdir(), 'rxinformer-live-discovery-'));
      kubeconfig = join(dir, 'kubeconfig');
      await writeKubeconfigFile(kubeconfig, { server: `http://127.0.0.1:${(api.address() as AddressInfo).port}` });
    });
    afterAll(async () => {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it('should exit 2 with a clear message for a resource that cannot be watched, and 1 with a one-line message for an HTML answer', async () => {
      const [metrics, html] = await Promise.all([
        run(['--kubeconfig', kubeconfig, '--resource', 'metrics.k8s.io/v1beta1/pods']),
        run(['--kubeconfig', kubeconfig, '--resource', 'example.com/v1/widgets']),
      ]);
      expect(metrics.code).toBe(2);
      expect(metrics.stderr).toBe('error: metrics.k8s.io/v1beta1 pods cannot be listed and watched (the server allows only: get, list)\n');
      expect(html.code).toBe(1);
      expect(html.stderr).toMatch(/^error: the answer to \/apis\/example.com\/v1 is not JSON \(a proxy or gateway in the way\?\): <html>/);
      expect(html.stderr.trim().split('\n')).toHaveLength(1); // no stack
    });
  });

  // `npm start -- --kubeconfig FILE` against the simulator and a real kube-apiserver (through the
  // fault proxy, with its CA and token), from the same cases.
  describe.each(serverKinds())('with --kubeconfig against the %s server, seeded with known pods', (kind) => {
    let server: TestServer;
    let dir: string;
    let kubeconfig: string;
    let a: string;
    let b: string;
    const podsIn = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
    const create = (ns: string, name: string, app: string) =>
      server.api.create(podsIn(ns), pod(name, { labels: { app }, namespace: null }));
    beforeAll(async () => {
      server = await startTestServer(kind);
      [a, b] = [await server.namespace('live-a'), await server.namespace('live-b')];
      await create(a, 'alpha', 'web');
      await create(a, 'beta', 'db');
      await create(b, 'gamma', 'web');
      dir = mkdtempSync(join(tmpdir(), 'rxinformer-live-test-'));
      kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, server.kubeConfig().exportConfig(), { mode: 0o600 });
    }, START_TIMEOUT_MS);
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('should list the known pods and show live changes, with no simulator of its own', async () => {
      const cli = startCli(['--kubeconfig', kubeconfig, '--duration', '4']);
      await cli.waitFor(/^synced: 3 objects/m);
      await create(b, 'delta', 'web');
      await server.api.delete(`${podsIn(a)}/beta`);
      const r = await cli.exit;
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/simulator running/);
      expect(r.stdout).toContain(`watching context test (${server.proxy.url})`);
      expect(eventLines(r.stdout, 'ADDED').sort()).toEqual([
        `ADDED ${a} alpha Pending`,
        `ADDED ${a} beta Pending`,
        `ADDED ${b} delta Pending`,
        `ADDED ${b} gamma Pending`,
      ]);
      expect(eventLines(r.stdout, 'DELETED')).toEqual([`DELETED ${a} beta <deleted>`]);
      expect(r.stdout).toMatch(/^summary: ran [\d.]+s, 3 objects cached$/m);
      // kube-apiserver marks the pod Terminating (MODIFIED) before it deletes it, even with grace 0.
      expect(r.stdout).toMatch(/^events: ADDED=4 MODIFIED=[01] DELETED=1 /m);
    });

    it('should filter with --namespace and --selector, --field-selector, and read KUBECONFIG', async () => {
      const [scoped, fields, fromEnv] = await Promise.all([
        run(['--kubeconfig', kubeconfig, '-n', a, '-l', 'app=web', '--duration', '1.5']),
        run(['--kubeconfig', kubeconfig, '--field-selector', `metadata.namespace=${b}`, '--duration', '1.5']),
        run(['--duration', '1.5', '--resource', 'namespaces'], { KUBECONFIG: kubeconfig }),
      ]);
      expect(scoped.code).toBe(0);
      expect(scoped.stdout).toContain(`watching pods in namespace ${a} (app=web)`);
      expect(eventLines(scoped.stdout, 'ADDED')).toEqual([`ADDED ${a} alpha Pending`]);
      expect(fields.code).toBe(0);
      expect(eventLines(fields.stdout, 'ADDED')).toEqual(expect.arrayContaining([`ADDED ${b} gamma Pending`]));
      expect(eventLines(fields.stdout, 'ADDED').filter((l) => !l.includes(` ${b} `))).toEqual([]);
      expect(fromEnv.code).toBe(0);
      expect(fromEnv.stdout).toContain('watching namespaces in cluster-scoped');
      expect(eventLines(fromEnv.stdout, 'ADDED').map((l) => l.split(' ')[1])).toEqual(expect.arrayContaining(['default', a, b]));
    });
  });

  describe('with a kubeconfig that is wrong', () => {
    let sim: ApiServer;
    let dir: string;
    let kubeconfig: string;
    beforeAll(async () => {
      sim = await startApiServer({ port: 0 });
      dir = mkdtempSync(join(tmpdir(), 'rxinformer-live-test-'));
      kubeconfig = join(dir, 'kubeconfig');
      await sim.writeKubeconfig(kubeconfig);
    });
    afterAll(async () => {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('should keep retrying an unreachable cluster, show the failure, and still exit 0 with the errors in the summary', async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve)); // nothing listens there now
      const dead = join(dir, 'dead');
      await writeKubeconfigFile(dead, { server: `http://127.0.0.1:${port}` });
      const r = await run(['--kubeconfig', dead, '--duration', '1.5']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^reflector: backingOff \(retry in [\d.]+m?s\), last error: NetworkError: connection refused \[ECONNREFUSED\]/m,
      );
      expect(r.stdout).toMatch(/^summary: ran [\d.]+s, 0 objects cached$/m);
      expect(r.stdout).toMatch(/^relists=0 reflector errors=[1-9]\d* \(NetworkError\)/m);
    });

    it('should exit 2 with a clear message for an unknown context or resource, or an unusable kubeconfig', async () => {
      const empty = join(dir, 'empty');
      writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
      const [context, resource, unusable, missing] = await Promise.all([
        run(['--kubeconfig', kubeconfig, '--context', 'nope']),
        run(['--kubeconfig', kubeconfig, '--resource', 'example.com/v1/widgets']),
        run(['--kubeconfig', empty]),
        run(['--kubeconfig', join(dir, 'missing')]),
      ]);
      expect(unusable.code).toBe(2);
      expect(unusable.stderr).toBe(`error: the kubeconfig ${empty} has no current context with a cluster\n`);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^error: cannot load the kubeconfig .*missing: ENOENT/);
      expect(context.code).toBe(2);
      expect(context.stderr).toBe('error: no context "nope" in the kubeconfig (have: sim)\n');
      expect(resource.code).toBe(2);
      expect(resource.stderr).toMatch(/^error: no resource example.com\/v1 widgets on the server/);
    });
  });

  // Seven commands at once: a budget for a machine whose other core is busy too.
  it('should exit 2 with the message and the usage for invalid options, and 0 for --help', async () => {
    const [unknown, duration, resource, help, soakHelp, soakBad, version] = await Promise.all([
      run(['--bogus']),
      run(['--duration', 'soon']),
      run(['--resource', 'widgets', '--duration', '60']), // exits 2 once discovery answers, however long that takes
      run(['--help']),
      run(['soak', '--help']),
      run(['soak', '--runs', '0']),
      run(['--version']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: Unknown option '--bogus'/);
    expect(unknown.stderr).toContain('usage: rxinformer [options]');
    expect(unknown.stdout).toBe('');
    expect(duration.code).toBe(2);
    expect(duration.stderr).toMatch(/^error: --duration must be a number of at least 0.1, got "soon"/);
    expect(resource.code).toBe(2);
    expect(resource.stderr).toMatch(/^error: unknown resource "widgets"/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^rxinformer — /);
    expect(help.stdout).toContain('rxinformer soak [options]');
    expect(help.stdout).toContain('\nusage: rxinformer [options]');
    expect(soakHelp.code).toBe(0);
    expect(soakHelp.stdout).toMatch(/^usage: rxinformer soak \[options\]/);
    expect(soakBad.code).toBe(2);
    expect(soakBad.stderr).toMatch(/^--runs needs an integer >= 1, got "0"/);
    expect(version.stdout).toBe('0.1.0\n');
  }, 180_000);
});
