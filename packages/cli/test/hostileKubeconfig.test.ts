/**
 * The live view given kubeconfig files that cannot work, as a user's disk may hold them: written
 * half (cut at several places), naming a user or a context the file lacks, or with TLS data that is
 * not PEM. Each run exits 2 at once with a one-line `error:` naming the problem (no excerpt of the
 * file, which holds the token): never a hang, never a run that quietly goes on without the
 * kubeconfig's user or CA.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigYaml } from '@rxinformer/apiserver-sim';
import { killAll, run } from './cliProcess.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxinformer-bad-kubeconfig-'));
});
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

// A kubeconfig of a server nobody answers at: a file that loaded would run (and back off) until --duration.
const token = 'SEKRET-TOKEN-0123456789';
const full = kubeconfigYaml({ server: 'https://127.0.0.1:1', token, certificateAuthority: 'x' });
const at = (text: string) => full.indexOf(text);

const files: [string, string, RegExp][] = [
  ['cut inside a quoted string', full.slice(0, at('"https://') + 5), /^error: cannot load the kubeconfig .*: unexpected end of the stream/],
  ['cut inside its token', full.slice(0, at(token) + 10), /^error: cannot load the kubeconfig .*: unexpected end of the stream/],
  ['cut after "clusters:"', full.slice(0, at('clusters:') + 'clusters:\n- '.length), /^error: cannot load the kubeconfig /],
  [
    'cut before its users',
    full.slice(0, at('users:')),
    /^error: the kubeconfig cannot be used: the context "sim" names user "sim", which the kubeconfig does not have$/,
  ],
  [
    'naming a current context it lacks',
    full.replace('current-context: "sim"', 'current-context: "gone"'),
    /^error: the kubeconfig .* has no current context with a cluster$/,
  ],
  [
    'with certificate-authority-data that is not base64 of PEM',
    full,
    /^error: the kubeconfig cannot be used: the certificate authority .* holds no PEM certificate/,
  ],
];

describe('the rxinformer command given a kubeconfig that cannot work', () => {
  it.each(files)('should exit 2 at once with a one-line error for a file %s', async (_what, text, message) => {
    const path = join(dir, 'kubeconfig');
    writeFileSync(`${path}-${text.length}`, text, { mode: 0o600 });
    const r = await run(['--kubeconfig', `${path}-${text.length}`, '--duration', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stdout + r.stderr).not.toContain(token.slice(0, 6)); // the YAML parser's excerpt of the file is not printed
  });
});
