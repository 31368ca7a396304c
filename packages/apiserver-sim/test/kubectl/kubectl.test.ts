/**
 * Real kubectl (the v1.27, v1.32 and v1.33 builds beside the `kubectl` dispatcher on the PATH)
 * against the simulator and against kube-apiserver 1.36.3, from the same cases: the test writes and
 * reads through the API (`server.api`), kubectl through the fault proxy. Skipped, with a message,
 * when the binaries are absent. 1.32 and 1.33 send `kubectl create` bodies as protobuf; 1.27 sends
 * JSON. kubectl 1.27 against a 1.36 server is outside the supported skew (±1 minor): these are the
 * basic things it still does. Server-side apply: `kubectlApply.test.ts`.
 */
import { describe, expect, it } from '@jest/globals';
import { serverKinds } from '@rxinformer/testing/servers';
import { kubectlBuilds, kubectlDir, podManifest, useKubectl } from './kubectl.ts';

const dir = kubectlDir();
const builds = kubectlBuilds(dir, ['27', '32', '33']);
if (builds.length === 0) console.warn('kubectl tests skipped: no kubectl.1.27 / 1.32 / 1.33 beside `kubectl` on the PATH');
const describeKubectl = builds.length > 0 ? describe : describe.skip;

const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'x' }] },
});

describe.each(serverKinds())('against the %s server', (kind) => {
  describeKubectl.each(builds)('kubectl 1.%s', (minor) => {
    const ctx = useKubectl(kind, dir ?? '', minor);
    let teamA = '';

    it('should apply a manifest, then a changed one', async () => {
      const { kubectl, server } = ctx;
      expect(await kubectl.ok(['apply', '-f', ctx.file('v1.yaml', podManifest('nginx:1.27', 'app: web'))])).toContain('pod/web created');
      const v2 = ctx.file('v2.yaml', podManifest('nginx:1.28', 'app: web, tier: front'));
      expect(await kubectl.ok(['apply', '-f', v2])).toContain('pod/web configured');
      const got = await server.api.get(`${pods(ctx.namespace)}/web`);
      expect(got.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['nginx=nginx:1.28', 'sidecar=busybox:1.36']);
      expect(got.metadata.labels).toEqual({ app: 'web', tier: 'front' });
      expect(JSON.stringify(got)).not.toContain('$setElementOrder');
    });

    it('should print the pod Table columns', async () => {
      const [header, row] = (await ctx.kubectl.ok(['get', 'pods'])).trim().split('\n');
      expect(header.split(/\s+/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      expect(row).toMatch(/^web\s+\d+\/2\s+Pending\s+0\s+\d+s$/);
    });

    it('should list across namespaces with labels', async () => {
      teamA = await ctx.server.namespace(`team-a-${minor}`);
      await ctx.server.api.create(pods(teamA), pod('other', { team: 'a' }));
      const lines = (await ctx.kubectl.ok(['get', 'pods', '-A', '--show-labels'])).trim().split('\n');
      expect(lines[0].split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'LABELS']);
      // The server may hold other blocks' namespaces (one kube-apiserver serves the file): these two are the block's.
      expect(
        lines
          .slice(1)
          .map((l) => l.split(/\s+/))
          .filter((c) => c[0] === ctx.namespace || c[0] === teamA)
          .map((c) => `${c[0] === teamA ? 'team-a' : 'own'}/${c[1]} ${c[c.length - 1]}`),
      ).toEqual(['own/web app=web,tier=front', 'team-a/other team=a']);
    });

    it('should label a pod', async () => {
      expect(await ctx.kubectl.ok(['label', 'pod', 'web', 'env=test'])).toContain('pod/web labeled');
      expect((await ctx.server.api.get(`${pods(ctx.namespace)}/web`)).metadata.labels).toEqual({ app: 'web', tier: 'front', env: 'test' });
    });

    it('should page with get --raw', async () => {
      const cms = `/api/v1/namespaces/${ctx.namespace}/configmaps`;
      for (let i = 0; i < 5; i++) await ctx.server.api.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } });
      const first = JSON.parse(await ctx.kubectl.ok(['get', '--raw', `${cms}?limit=2`]));
      expect(first.items.map((c: any) => c.metadata.name)).toEqual(['cm-0', 'cm-1']);
      const next = `${cms}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`;
      const second = JSON.parse(await ctx.kubectl.ok(['get', '--raw', next]));
      expect(second.items.map((c: any) => c.metadata.name)).toEqual(['cm-2', 'cm-3']);
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });

    it('should follow changes with get -w and exit 0 when the stream ends', async () => {
      const { server } = ctx;
      let changed = false;
      let ended = false;
      const run = ctx.kubectl(['get', 'pods', '-w'], {
        onStdout: (all) => {
          const rows = all.trim().split('\n');
          if (!changed && rows.length >= 2) {
            changed = true;
            void server.api
              .get(`${pods(ctx.namespace)}/web`)
              .then((cur) =>
                server.api.update(`${pods(ctx.namespace)}/web/status`, { ...cur, status: { ...cur.status, phase: 'Running' } }),
              );
          } else if (!ended && rows.length >= 3) {
            ended = true;
            server.proxy.cut(); // the connection ends mid-stream, as when a server or network goes away
          }
        },
      });
      const r = await run;
      expect(r.code).toBe(0);
      const rows = r.stdout.trim().split('\n');
      expect(rows[0].split(/\s+/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      expect(rows[1]).toMatch(/^web\s.*Pending/);
      expect(rows[2]).toMatch(/^web\s.*Running/);
    });

    it('should delete and wait for the deletion', async () => {
      await ctx.server.api.delete(`${pods(teamA)}/other`);
      const r = await ctx.kubectl(['delete', 'pod', 'web', '--wait', '--grace-period=1']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('pod "web" deleted');
      expect(await ctx.server.api.find(`${pods(ctx.namespace)}/web`)).toBeUndefined();
    });

    it('should create objects with kubectl create and run (protobuf bodies from 1.32 on) and get them back with every field', async () => {
      const ok = ctx.kubectl.ok;
      const made = `made-${ctx.namespace}`; // cluster-scoped: a name of the block's own
      expect(await ok(['create', 'namespace', made])).toContain(`namespace/${made} created`);
      expect(await ok(['create', 'configmap', 'made', '--from-literal=a=1', '--from-literal=b=two'])).toContain('configmap/made created');
      expect(await ok(['create', 'secret', 'generic', 'made', '--from-literal=p=secret'])).toContain('secret/made created');
      expect(await ok(['create', 'deployment', 'made', '--image=nginx', '--port=80', '--replicas=2'])).toContain(
        'deployment.apps/made created',
      );
      expect(await ok(['create', 'service', 'clusterip', 'made', '--tcp=80:8080'])).toContain('service/made created');
      expect(await ok(['run', 'made', '--image=nginx', '--port=8080'])).toContain('pod/made created');
      expect(await ok(['create', 'serviceaccount', 'made'])).toContain('serviceaccount/made created');
      expect(await ok(['create', 'quota', 'made', '--hard=pods=10,requests.cpu=2'])).toContain('resourcequota/made created');
      expect(await ok(['create', 'job', 'made', '--image=busybox', '--', 'date'])).toContain('job.batch/made created');
      expect(await ok(['create', 'cronjob', 'made', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'])).toContain(
        'cronjob.batch/made created',
      );
      const get = async (...what: string[]) => JSON.parse(await ok(['get', ...what, '-o', 'json']));
      expect((await get('namespace', made)).metadata.name).toBe(made);
      expect((await get('configmap', 'made')).data).toEqual({ a: '1', b: 'two' });
      expect((await get('secret', 'made')).data).toEqual({ p: Buffer.from('secret').toString('base64') });
      expect((await get('deployment', 'made')).spec).toMatchObject({
        replicas: 2,
        selector: { matchLabels: { app: 'made' } },
        template: {
          metadata: { labels: { app: 'made' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] },
        },
      });
      expect((await get('service', 'made')).spec).toMatchObject({
        type: 'ClusterIP',
        selector: { app: 'made' },
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      });
      expect((await get('pod', 'made')).spec.containers).toMatchObject([
        { name: 'made', image: 'nginx', ports: [{ containerPort: 8080 }] },
      ]);
      expect((await get('resourcequota', 'made')).spec.hard).toEqual({ pods: '10', 'requests.cpu': '2' });
      expect((await get('job', 'made')).spec.template.spec.containers).toMatchObject([
        { name: 'made', image: 'busybox', command: ['date'] },
      ]);
      expect((await get('cronjob', 'made')).spec).toMatchObject({
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: { containers: [{ image: 'busybox', command: ['date'] }] } } } },
      });
      expect((await get('serviceaccount', 'made')).metadata.name).toBe('made');
      const stored = await ctx.server.api.get(`/api/v1/namespaces/${ctx.namespace}/configmaps/made`);
      expect(stored).not.toHaveProperty('metadata.creationTimestamp', null);
    }, 120_000);
  });
});
