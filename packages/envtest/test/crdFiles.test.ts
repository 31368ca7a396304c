/** readCRDs: CRDs from files and folders (YAML, multi-document, JSON), and the typed errors of bad ones. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRDFileError, readCRDs } from '../src/index.ts';

const fixtures = fileURLToPath(new URL('fixtures/crds', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'rxinformer-crd-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A file `name` in a fresh folder, holding `text`; its path. */
let serial = 0;
function file(name: string, text: string): string {
  const dir = join(scratch, String(++serial));
  mkdirSync(dir);
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const crd = (name: string, extra = '') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${name}s.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: ${name}s, kind: ${name[0].toUpperCase()}${name.slice(1)} }
  versions: [{ name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object } } }]
${extra}`;

describe('readCRDs', () => {
  it("should read a folder's YAML and JSON files by name, every CRD of a multi-document file, and nothing else", () => {
    const crds = readCRDs([fixtures]);
    // sprockets.json, then widgets.yaml's two; not the kustomization, notes.txt or the subfolder.
    expect(crds.map((c) => c.metadata.name)).toEqual([
      'sprockets.parts.example.com',
      'widgets.envtest.example.com',
      'gadgets.envtest.example.com',
    ]);
    expect(crds[1].spec.versions.map((v) => v.name)).toEqual(['v1', 'v1beta1']);
    expect(crds[1].spec.versions[1].schema).toEqual({ openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
  });

  it('should read files named one by one, in the order given', () => {
    const crds = readCRDs([join(fixtures, 'widgets.yaml'), join(fixtures, 'nested/ignored.yaml'), join(fixtures, 'sprockets.json')]);
    expect(crds.map((c) => c.metadata.name)).toEqual([
      'widgets.envtest.example.com',
      'gadgets.envtest.example.com',
      'ignoreds.nested.example.com',
      'sprockets.parts.example.com',
    ]);
    expect(readCRDs([])).toEqual([]);
  });

  const bad: [string, () => string, 'CRDPathMissing' | 'CRDFileInvalid', RegExp][] = [
    ['a path that is not there', () => join(scratch, 'nowhere'), 'CRDPathMissing', /nowhere: no such file or folder$/],
    [
      'YAML that does not parse',
      () => file('broken.yaml', `${crd('a')}---\nkind: [unclosed\n`),
      'CRDFileInvalid',
      /broken\.yaml: document 2 is not YAML: /,
    ],
    ['JSON that does not parse', () => file('broken.json', '{"kind": '), 'CRDFileInvalid', /broken\.json: not JSON: /],
    [
      'a document that is not an object',
      () => file('list.yaml', '- a\n- b\n'),
      'CRDFileInvalid',
      /list\.yaml: the document is not an object/,
    ],
    [
      'a CRD of apiextensions.k8s.io/v1beta1',
      () => file('old.yaml', crd('old').replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1')),
      'CRDFileInvalid',
      /old\.yaml: the document is a CustomResourceDefinition of apiextensions\.k8s\.io\/v1beta1: only apiextensions\.k8s\.io\/v1 is served/,
    ],
    [
      'a CRD without a plural',
      () => file('np.yaml', crd('np').replace('plural: nps, ', '')),
      'CRDFileInvalid',
      /the document \(a CustomResourceDefinition\) has no spec\.names\.plural/,
    ],
    [
      'a CRD without versions',
      () =>
        file(
          'nv.json',
          JSON.stringify({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name: 'x.y' },
            spec: { group: 'y', names: { plural: 'x', kind: 'X' } },
          }),
        ),
      'CRDFileInvalid',
      /has no spec\.versions/,
    ],
    [
      'a name defined twice',
      () => file('twice.yaml', `${crd('twin')}---\n${crd('twin')}`),
      'CRDFileInvalid',
      /CustomResourceDefinition twins\.example\.com is also defined in .*twice\.yaml/,
    ],
    [
      'a file without a CRD',
      () => file('kustomization.yaml', 'kind: Kustomization\n'),
      'CRDFileInvalid',
      /kustomization\.yaml: no CustomResourceDefinition in this file$/,
    ],
    [
      'a folder without a CRD',
      () => join(fixtures, '..', '..', '..', 'src'),
      'CRDFileInvalid',
      /src: no CustomResourceDefinition in the \.yaml, \.yml and \.json files of this folder$/,
    ],
  ];
  it.each(bad)('should refuse %s with a CRDFileError naming the file', (_, path, reason, message) => {
    const p = path();
    const error = (() => {
      try {
        readCRDs([p]);
      } catch (e) {
        return e as CRDFileError;
      }
    })();
    expect(error).toBeInstanceOf(CRDFileError);
    expect(error?.reason).toBe(reason);
    expect(error?.path).toBe(p);
    expect(error?.message).toMatch(message);
  });
});
