/**
 * Real kubectl (v1.27, v1.32 and v1.33 builds that sit beside the `kubectl` dispatcher on the PATH)
 * against the simulator. Skipped, with a message, when the binaries are absent. 1.32 and 1.33 send
 * `kubectl create` bodies as protobuf; 1.27 sends JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startApiServer, type ApiServer } from '../src/index.ts';

function kubectlDir(): string | undefined {
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return onPath ? dirname(realpathSync(onPath)) : undefined;
  } catch {
    return undefined;
  }
}

const dir = kubectlDir();
const builds = ['27', '32', '33'].filter((minor) => dir !== undefined && existsSync(join(dir, `kubectl.1.${minor}`)));
if (builds.length === 0) {
  console.warn('kubectl tests skipped: no kubectl.1.27 / kubectl.1.32 / kubectl.1.33 beside `kubectl` on the PATH');
}
const describeKubectl = builds.length > 0 ? describe : describe.skip;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const manifest = (image: string, labels: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {${labels}}
spec:
  containers:
  - name: nginx
    image: ${image}
    ports: [{containerPort: 80}]
  - name: sidecar
    image: busybox:1.36
`;

/**
 * A Deployment manifest named `name` (its pods labelled `app: <name>`) with one `web` container:
 * `container` and `podSpec` are extra YAML lines of the container and of the pod spec.
 */
const deploymentYaml = (name: string, extra: { labels?: string; container?: string[]; podSpec?: string[] }) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    ...(extra.labels !== undefined ? [`  labels: {${extra.labels}}`] : []),
    'spec:',
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    '    spec:',
    '      containers:',
    '      - name: web',
    '        image: nginx:1.27',
    ...(extra.container ?? []).map((l) => `        ${l}`),
    ...(extra.podSpec ?? []).map((l) => `      ${l}`),
    '',
  ].join('\n');

describeKubectl.each(builds)('kubectl 1.%s', (minor) => {
  let sim: ApiServer;
  let tmp: string;
  let kubeconfig: string;
  const bin = join(dir ?? '', `kubectl.1.${minor}`);

  const kubectl = (
    args: string[],
    options: { timeoutMs?: number; onStdout?: (all: string, child: ReturnType<typeof spawn>) => void } = {},
  ): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(bin, ['--kubeconfig', kubeconfig, '--cache-dir', join(tmp, 'cache'), ...args], {
        env: { ...process.env, HOME: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`kubectl ${args.join(' ')} timed out; stdout: ${stdout}; stderr: ${stderr}`));
      }, options.timeoutMs ?? 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        options.onStdout?.(stdout, child);
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  const ok = async (args: string[]): Promise<string> => {
    const r = await kubectl(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };

  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: Number(minor), version: { major: '1', minor } });
    tmp = mkdtempSync(join(tmpdir(), `sim-kubectl-${minor}-`));
    kubeconfig = join(tmp, 'kubeconfig');
    await sim.writeKubeconfig(kubeconfig);
    writeFileSync(join(tmp, 'v1.yaml'), manifest('nginx:1.27', 'app: web'));
    writeFileSync(join(tmp, 'v2.yaml'), manifest('nginx:1.28', 'app: web, tier: front'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('should apply a manifest, then a changed one', async () => {
    expect(await ok(['apply', '-f', join(tmp, 'v1.yaml')])).toContain('pod/web created');
    expect(await ok(['apply', '-f', join(tmp, 'v2.yaml')])).toContain('pod/web configured');
    const pod = sim.storage.get('pods', 'default', 'web') as any;
    expect(pod.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['nginx=nginx:1.28', 'sidecar=busybox:1.36']);
    expect(pod.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(JSON.stringify(pod)).not.toContain('$setElementOrder');
  });

  it('should apply server-side, refuse a conflicting manager, and take over with --force-conflicts', async () => {
    const cm = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: "${value}"\n`;
    writeFileSync(join(tmp, 'ssa1.yaml'), cm('one'));
    writeFileSync(join(tmp, 'ssa2.yaml'), cm('two'));
    expect(await ok(['apply', '--server-side', '-f', join(tmp, 'ssa1.yaml')])).toContain('configmap/ssa serverside-applied');
    const refused = await kubectl(['apply', '--server-side', '--field-manager', 'other', '-f', join(tmp, 'ssa2.yaml')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('conflict with "kubectl"');
    expect(refused.stderr).toContain('.data.key');
    expect((sim.storage.get('configmaps', 'default', 'ssa') as any).data.key).toBe('one');
    expect(await ok(['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', join(tmp, 'ssa2.yaml')])).toContain(
      'serverside-applied',
    );
    const stored = sim.storage.get('configmaps', 'default', 'ssa') as any;
    expect(stored.data.key).toBe('two');
    expect(stored.metadata.managedFields.map((e: any) => e.manager)).toEqual(['other']);
  });

  it('should remove fields dropped from a server-side applied configuration unless another manager owns them', async () => {
    const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pruned\ndata: {${data}}\n`;
    const apply = (file: string, text: string, manager = 'kubectl') => {
      writeFileSync(join(tmp, file), text);
      return ok(['apply', '--server-side', '--field-manager', manager, '-f', join(tmp, file)]);
    };
    await apply('p1.yaml', cm('a: "1", b: "2", c: "3"'));
    await apply('p2.yaml', cm('c: "3"'), 'other'); // shares c
    await apply('p3.yaml', cm('a: "1"'));
    const got = JSON.parse(await ok(['get', 'configmap', 'pruned', '-o', 'json', '--show-managed-fields']));
    expect(got.data).toEqual({ a: '1', c: '3' });
    const fields = Object.fromEntries(
      got.metadata.managedFields.map((e: any) => [`${e.manager}/${e.operation}`, Object.keys(e.fieldsV1['f:data'])]),
    );
    expect(fields).toEqual({ 'kubectl/Apply': ['f:a'], 'other/Apply': ['f:c'] });
    expect(await ok(['get', 'configmap', 'pruned', '-o', 'yaml', '--show-managed-fields'])).toContain('manager: other');

    const deploy = (env: string, labels: string) => deploymentYaml('pruned', { labels, container: [`env: [${env}]`] });
    await apply('d1.yaml', deploy('{name: A, value: "1"}, {name: B, value: "2"}', 'app: pruned, tier: web'));
    await apply('d2.yaml', deploy('{name: A, value: "1"}', 'app: pruned'));
    const d = sim.storage.get('deployments', 'default', 'pruned') as any;
    expect(d.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(d.metadata.labels).toEqual({ app: 'pruned' });
    // a label kubectl label set, then applied with the same value (shared), stays when the applier drops it
    await ok(['label', 'deployment', 'pruned', 'team=a']);
    await apply('d3.yaml', deploy('{name: A, value: "1"}', 'app: pruned, team: a'));
    await apply('d4.yaml', deploy('{name: A, value: "1"}', 'app: pruned'));
    const kept = JSON.parse(await ok(['get', 'deployment', 'pruned', '-o', 'json', '--show-managed-fields']));
    expect(kept.metadata.labels).toEqual({ app: 'pruned', team: 'a' });
    const labels = Object.fromEntries(
      kept.metadata.managedFields.map((e: any) => [
        `${e.manager}/${e.operation}`,
        Object.keys(e.fieldsV1['f:metadata']?.['f:labels'] ?? {}),
      ]),
    );
    expect(labels).toEqual({ 'kubectl/Apply': ['f:app'], 'kubectl-label/Update': ['f:team'] });
  });

  it('should key volume mounts by mountPath and ports by containerPort and protocol, so a second applier conflicts on the right item', async () => {
    const deploy = (cacheReadOnly: boolean, portName: string) =>
      deploymentYaml('mounts', {
        container: [
          `ports: [{containerPort: 8080, protocol: TCP, name: ${portName}}, {containerPort: 8080, protocol: UDP, name: udp}]`,
          'volumeMounts:',
          '- {name: data, mountPath: /data, readOnly: false}',
          `- {name: data, mountPath: /cache, subPath: cache, readOnly: ${cacheReadOnly}}`,
        ],
        podSpec: ['volumes: [{name: data, emptyDir: {}}]'],
      });
    writeFileSync(join(tmp, 'm1.yaml'), deploy(false, 'http'));
    writeFileSync(join(tmp, 'm2.yaml'), deploy(true, 'web'));
    await ok(['apply', '--server-side', '-f', join(tmp, 'm1.yaml')]);
    const refused = await kubectl(['apply', '--server-side', '--field-manager', 'other', '-f', join(tmp, 'm2.yaml')]);
    expect(refused.code).not.toBe(0);
    const container = '.spec.template.spec.containers[name="web"]';
    // several conflicts are grouped by manager, as kube-apiserver words them (test/fidelity)
    expect(refused.stderr).toContain('conflicts with "kubectl":');
    expect(refused.stderr).toContain(`- ${container}.ports[containerPort=8080,protocol="TCP"].name`);
    expect(refused.stderr).toContain(`- ${container}.volumeMounts[mountPath="/cache"].readOnly`);
    expect(refused.stderr).not.toContain('mountPath="/data"');
    expect(refused.stderr).not.toContain('protocol="UDP"');

    await ok(['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', join(tmp, 'm2.yaml')]);
    const got = JSON.parse(await ok(['get', 'deployment', 'mounts', '-o', 'json', '--show-managed-fields']));
    const web = got.spec.template.spec.containers[0];
    expect(web.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data', readOnly: false },
      { name: 'data', mountPath: '/cache', subPath: 'cache', readOnly: true },
    ]);
    expect(web.ports.map((p: any) => `${p.containerPort}/${p.protocol}=${p.name}`)).toEqual(['8080/TCP=web', '8080/UDP=udp']);
    const mine = got.metadata.managedFields.find((e: any) => e.manager === 'kubectl').fieldsV1['f:spec']['f:template']['f:spec'][
      'f:containers'
    ]['k:{"name":"web"}'];
    expect(Object.keys(mine['f:volumeMounts']).sort()).toEqual(['k:{"mountPath":"/cache"}', 'k:{"mountPath":"/data"}']);
    expect(Object.keys(mine['f:volumeMounts']['k:{"mountPath":"/cache"}'])).not.toContain('f:readOnly');
    expect(Object.keys(mine['f:ports']['k:{"containerPort":8080,"protocol":"TCP"}'])).not.toContain('f:name');
  });

  it('should give a patch or a label only the fields it changed, so an applier conflicts on those alone', async () => {
    writeFileSync(join(tmp, 'o1.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edited\ndata: {a: "1", b: "2"}\n');
    await ok(['apply', '--server-side', '-f', join(tmp, 'o1.yaml')]);
    await ok(['patch', 'configmap', 'edited', '--type', 'merge', '-p', '{"data":{"a":"changed"}}']);
    await ok(['label', 'configmap', 'edited', 'env=test']);
    const got = JSON.parse(await ok(['get', 'configmap', 'edited', '-o', 'json', '--show-managed-fields']));
    expect(Object.fromEntries(got.metadata.managedFields.map((e: any) => [`${e.manager}/${e.operation}`, e.fieldsV1]))).toEqual({
      'kubectl/Apply': { 'f:data': { 'f:b': {} } },
      'kubectl-patch/Update': { 'f:data': { 'f:a': {} } },
      'kubectl-label/Update': { 'f:metadata': { 'f:labels': { 'f:env': {} } } },
    });
    const refused = await kubectl(['apply', '--server-side', '-f', join(tmp, 'o1.yaml')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('conflict with "kubectl-patch" using v1: .data.a');
    expect(refused.stderr).not.toContain('.data.b');
    expect(refused.stderr).not.toContain('labels');
  });

  // `apply --subresource` arrived in kubectl 1.32 (beta there, GA in 1.33)
  it("should server-side apply to the status subresource, conflicting with the kubelet's status fields unless forced", async () => {
    writeFileSync(join(tmp, 'status.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: stat\nstatus:\n  phase: Failed\n');
    const args = ['apply', '--server-side', '--subresource=status', '--field-manager', 'ctl', '-f', join(tmp, 'status.yaml')];
    if (Number(minor) < 32) {
      const r = await kubectl(args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('unknown flag: --subresource');
      return;
    }
    await ok(['run', 'stat', '--image', 'nginx:1.27']);
    const pods = `${sim.url}/api/v1/namespaces/default/pods`;
    const cur = await (await fetch(`${pods}/stat`)).json();
    const put = await fetch(`${pods}/stat/status?fieldManager=kubelet`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...cur, status: { ...cur.status, phase: 'Running', podIP: '10.0.0.9' } }),
    });
    expect(put.status).toBe(200);
    const rv = sim.storage.resourceVersion;
    const refused = await kubectl(args);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('conflict with "kubelet" with subresource "status" using v1: .status.phase');
    expect(sim.storage.resourceVersion).toBe(rv);
    expect(await ok([...args, '--force-conflicts'])).toContain('pod/stat serverside-applied');
    const got = JSON.parse(await ok(['get', 'pod', 'stat', '-o', 'json', '--show-managed-fields']));
    expect(got.status.phase).toBe('Failed');
    const entries = got.metadata.managedFields.filter((e: any) => e.subresource === 'status');
    expect(entries.map((e: any) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['kubelet', 'Update', { 'f:status': { 'f:podIP': {} } }],
      ['ctl', 'Apply', { 'f:status': { 'f:phase': {} } }],
    ]);
    await ok(['delete', 'pod', 'stat', '--grace-period=0', '--force']);
  });

  it('should print the pod Table columns', async () => {
    const out = await ok(['get', 'pods']);
    const [header, row] = out.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(row).toMatch(/^web\s+\d+\/2\s+Pending\s+0\s+\d+s$/);
  });

  it('should list across namespaces with labels', async () => {
    sim.storage.create('namespaces', { metadata: { name: 'team-a' } });
    sim.storage.create(
      'pods',
      { metadata: { name: 'other', labels: { team: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      'team-a',
    );
    const lines = (await ok(['get', 'pods', '-A', '--show-labels'])).trim().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'LABELS']);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(/\s+/))
        .map((c) => `${c[0]}/${c[1]} ${c[c.length - 1]}`),
    ).toEqual(['default/web app=web,tier=front', 'team-a/other team=a']);
  });

  it('should label a pod', async () => {
    expect(await ok(['label', 'pod', 'web', 'env=test'])).toContain('pod/web labeled');
    expect((sim.storage.get('pods', 'default', 'web') as any).metadata.labels).toEqual({ app: 'web', tier: 'front', env: 'test' });
  });

  it('should page with get --raw', async () => {
    for (let i = 0; i < 5; i++) sim.storage.create('configmaps', { metadata: { name: `cm-${i}` } }, 'default');
    const first = JSON.parse(await ok(['get', '--raw', '/api/v1/namespaces/default/configmaps?limit=2']));
    expect(first.items.map((c: any) => c.metadata.name)).toEqual(['cm-0', 'cm-1']);
    const second = JSON.parse(
      await ok(['get', '--raw', `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`]),
    );
    expect(second.items.map((c: any) => c.metadata.name)).toEqual(['cm-2', 'cm-3']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });

  it('should follow changes with get -w and exit 0 when the server ends the stream', async () => {
    let changed = false;
    const run = kubectl(['get', 'pods', '-w'], {
      onStdout: (all) => {
        const rows = all.trim().split('\n');
        if (!changed && rows.length >= 2) {
          changed = true;
          const cur = sim.storage.get('pods', 'default', 'web');
          sim.storage.update('pods', { ...cur, status: { phase: 'Running' } }, 'default', 'web', { subresource: 'status' });
        } else if (rows.length >= 3) {
          for (const s of sim.watches.sessions()) s.end();
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
    sim.storage.delete('pods', 'team-a', 'other');
    const r = await kubectl(['delete', 'pod', 'web', '--wait', '--grace-period=1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('pod "web" deleted');
    expect(sim.storage.find('pods', 'default', 'web')).toBeUndefined();
  });

  it('should create objects with kubectl create and run (protobuf bodies from 1.32 on) and get them back with every field', async () => {
    expect(await ok(['create', 'namespace', 'made'])).toContain('namespace/made created');
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
    expect((await get('namespace', 'made')).metadata.name).toBe('made');
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
    expect((await get('pod', 'made')).spec.containers).toMatchObject([{ name: 'made', image: 'nginx', ports: [{ containerPort: 8080 }] }]);
    expect((await get('resourcequota', 'made')).spec.hard).toEqual({ pods: '10', 'requests.cpu': '2' });
    expect((await get('job', 'made')).spec.template.spec.containers).toMatchObject([{ name: 'made', image: 'busybox', command: ['date'] }]);
    expect((await get('cronjob', 'made')).spec).toMatchObject({
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ image: 'busybox', command: ['date'] }] } } } },
    });
    expect((await get('serviceaccount', 'made')).metadata.name).toBe('made');
    expect(sim.storage.get('configmaps', 'default', 'made')).not.toHaveProperty('metadata.creationTimestamp', null);
  });
});
