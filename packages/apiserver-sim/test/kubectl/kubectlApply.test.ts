/**
 * Server-side apply with real kubectl builds (1.27, 1.32, 1.33) against the simulator and against
 * kube-apiserver 1.36.3, from the same cases: conflicts, their wording, pruning, list keys, field
 * ownership of patches and labels, the status subresource. Reads go through kubectl or `server.api`.
 */
import { describe, expect, it } from '@jest/globals';
import { serverKinds } from '@rxinformer/testing/servers';
import { deploymentYaml, kubectlBuilds, kubectlDir, useKubectl } from './kubectl.ts';

const dir = kubectlDir();
const builds = kubectlBuilds(dir, ['27', '32', '33']);
const describeKubectl = builds.length > 0 ? describe : describe.skip;

/** A FieldsV1 set without its `.` markers (the simulator writes none for a map an Update added: README). */
const withoutMarkers = (set: any): any =>
  Object.fromEntries(Object.entries(set as object).flatMap(([k, v]) => (k === '.' ? [] : [[k, withoutMarkers(v)]])));

/** Who owns what (`manager/operation` → FieldsV1 less `.` markers), whatever the entries' order (the simulator does not sort them: README). */
const ownership = (entries: any[]) => Object.fromEntries(entries.map((e) => [`${e.manager}/${e.operation}`, withoutMarkers(e.fieldsV1)]));

describe.each(serverKinds())('against the %s server', (kind) => {
  describeKubectl.each(builds)('kubectl 1.%s server-side apply', (minor) => {
    const ctx = useKubectl(kind, dir ?? '', minor);
    const configMap = (name: string) => `/api/v1/namespaces/${ctx.namespace}/configmaps/${name}`;
    /** `kubectl apply --server-side` of `text` (written to `file`) as `manager`. */
    const apply = (file: string, text: string, manager = 'kubectl', ...more: string[]) =>
      ctx.kubectl.ok(['apply', '--server-side', '--field-manager', manager, ...more, '-f', ctx.file(file, text)]);
    const refusal = (file: string, text: string, manager = 'kubectl') =>
      ctx.kubectl(['apply', '--server-side', '--field-manager', manager, '-f', ctx.file(file, text)]);
    const getJson = async (...what: string[]) => JSON.parse(await ctx.kubectl.ok(['get', ...what, '-o', 'json', '--show-managed-fields']));

    it('should apply server-side, refuse a conflicting manager, and take over with --force-conflicts', async () => {
      const cm = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: "${value}"\n`;
      expect(await apply('ssa1.yaml', cm('one'))).toContain('configmap/ssa serverside-applied');
      const refused = await refusal('ssa2.yaml', cm('two'), 'other');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('conflict with "kubectl"');
      expect(refused.stderr).toContain('.data.key');
      expect((await ctx.server.api.get(configMap('ssa'))).data.key).toBe('one');
      expect(await apply('ssa2.yaml', cm('two'), 'other', '--force-conflicts')).toContain('serverside-applied');
      const stored = await ctx.server.api.get(configMap('ssa'));
      expect(stored.data.key).toBe('two');
      expect(stored.metadata.managedFields.map((e: any) => e.manager)).toEqual(['other']);
    });

    it('should remove fields dropped from a server-side applied configuration unless another manager owns them', async () => {
      const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pruned\ndata: {${data}}\n`;
      await apply('p1.yaml', cm('a: "1", b: "2", c: "3"'));
      await apply('p2.yaml', cm('c: "3"'), 'other'); // shares c
      await apply('p3.yaml', cm('a: "1"'));
      const got = await getJson('configmap', 'pruned');
      expect(got.data).toEqual({ a: '1', c: '3' });
      const fields = Object.fromEntries(
        got.metadata.managedFields.map((e: any) => [`${e.manager}/${e.operation}`, Object.keys(e.fieldsV1['f:data'])]),
      );
      expect(fields).toEqual({ 'kubectl/Apply': ['f:a'], 'other/Apply': ['f:c'] });
      expect(await ctx.kubectl.ok(['get', 'configmap', 'pruned', '-o', 'yaml', '--show-managed-fields'])).toContain('manager: other');

      const deploy = (env: string, labels: string) => deploymentYaml('pruned', { labels, container: [`env: [${env}]`] });
      await apply('d1.yaml', deploy('{name: A, value: "1"}, {name: B, value: "2"}', 'app: pruned, tier: web'));
      await apply('d2.yaml', deploy('{name: A, value: "1"}', 'app: pruned'));
      const d = await ctx.server.api.get(`/apis/apps/v1/namespaces/${ctx.namespace}/deployments/pruned`);
      expect(d.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
      expect(d.metadata.labels).toEqual({ app: 'pruned' });
      // a label kubectl label set, then applied with the same value (shared), stays when the applier drops it
      await ctx.kubectl.ok(['label', 'deployment', 'pruned', 'team=a']);
      await apply('d3.yaml', deploy('{name: A, value: "1"}', 'app: pruned, team: a'));
      await apply('d4.yaml', deploy('{name: A, value: "1"}', 'app: pruned'));
      const kept = await getJson('deployment', 'pruned');
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
      await apply('m1.yaml', deploy(false, 'http'));
      const refused = await refusal('m2.yaml', deploy(true, 'web'), 'other');
      expect(refused.code).not.toBe(0);
      const container = '.spec.template.spec.containers[name="web"]';
      // several conflicts are grouped by manager, as kube-apiserver words them (test/fidelity)
      expect(refused.stderr).toContain('conflicts with "kubectl":');
      expect(refused.stderr).toContain(`- ${container}.ports[containerPort=8080,protocol="TCP"].name`);
      expect(refused.stderr).toContain(`- ${container}.volumeMounts[mountPath="/cache"].readOnly`);
      // `readOnly: false` is an omitempty zero: not stored, so sending it again changes the object
      // and conflicts with its owner, though both configurations say false
      expect(refused.stderr).toContain(`- ${container}.volumeMounts[mountPath="/data"].readOnly`);
      expect(refused.stderr).not.toContain('protocol="UDP"');

      await apply('m2.yaml', deploy(true, 'web'), 'other', '--force-conflicts');
      const got = await getJson('deployment', 'mounts');
      const web = got.spec.template.spec.containers[0];
      expect(web.volumeMounts).toEqual([
        { name: 'data', mountPath: '/data' },
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
      const o1 = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edited\ndata: {a: "1", b: "2"}\n';
      await apply('o1.yaml', o1);
      await ctx.kubectl.ok(['patch', 'configmap', 'edited', '--type', 'merge', '-p', '{"data":{"a":"changed"}}']);
      await ctx.kubectl.ok(['label', 'configmap', 'edited', 'env=test']);
      const got = await getJson('configmap', 'edited');
      expect(ownership(got.metadata.managedFields)).toEqual({
        'kubectl/Apply': { 'f:data': { 'f:b': {} } },
        'kubectl-patch/Update': { 'f:data': { 'f:a': {} } },
        'kubectl-label/Update': { 'f:metadata': { 'f:labels': { 'f:env': {} } } },
      });
      const refused = await refusal('o1.yaml', o1);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('conflict with "kubectl-patch" using v1: .data.a');
      expect(refused.stderr).not.toContain('.data.b');
      expect(refused.stderr).not.toContain('labels');
    });

    // `apply --subresource` arrived in kubectl 1.32 (beta there, GA in 1.33)
    it("should server-side apply to the status subresource, conflicting with the kubelet's status fields unless forced", async () => {
      const status = ctx.file('status.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: stat\nstatus:\n  phase: Failed\n');
      const args = ['apply', '--server-side', '--subresource=status', '--field-manager', 'ctl', '-f', status];
      if (Number(minor) < 32) {
        const r = await ctx.kubectl(args);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain('unknown flag: --subresource');
        return;
      }
      await ctx.kubectl.ok(['run', 'stat', '--image', 'nginx:1.27']);
      const path = `/api/v1/namespaces/${ctx.namespace}/pods/stat`;
      const cur = await ctx.server.api.get(path);
      await ctx.server.api.update(`${path}/status?fieldManager=kubelet`, {
        ...cur,
        status: { ...cur.status, phase: 'Running', podIP: '10.0.0.9' },
      });
      const before = (await ctx.server.api.get(path)).metadata.resourceVersion;
      const refused = await ctx.kubectl(args);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('conflict with "kubelet" with subresource "status" using v1: .status.phase');
      expect((await ctx.server.api.get(path)).metadata.resourceVersion).toBe(before);
      expect(await ctx.kubectl.ok([...args, '--force-conflicts'])).toContain('pod/stat serverside-applied');
      const got = await getJson('pod', 'stat');
      expect(got.status.phase).toBe('Failed');
      expect(ownership(got.metadata.managedFields.filter((e: any) => e.subresource === 'status'))).toEqual({
        // podIPs follows podIP (the v1 conversion), so the kubelet's write set it too
        'kubelet/Update': { 'f:status': { 'f:podIP': {}, 'f:podIPs': { 'k:{"ip":"10.0.0.9"}': { 'f:ip': {} } } } },
        'ctl/Apply': { 'f:status': { 'f:phase': {} } },
      });
      expect(got.status.podIPs).toEqual([{ ip: '10.0.0.9' }]);
      await ctx.kubectl.ok(['delete', 'pod', 'stat', '--grace-period=0', '--force']);
    });
  });
});
