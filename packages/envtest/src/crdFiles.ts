/**
 * Reading CustomResourceDefinitions from files and folders, as controller-runtime's envtest does:
 * YAML (multi-document) and JSON; in a folder, its `.yaml`, `.yml` and `.json` files (not its
 * subfolders), in name order; documents of other kinds (a kustomization) are passed over.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CRDFileError } from './errors.ts';

/** A CustomResourceDefinition (apiextensions.k8s.io/v1), with the fields installing it reads; the rest as the server takes it. */
export interface CustomResourceDefinition {
  /** `apiextensions.k8s.io/v1`. */
  apiVersion: 'apiextensions.k8s.io/v1';
  /** `CustomResourceDefinition`. */
  kind: 'CustomResourceDefinition';
  /** Its `name` is `<plural>.<group>`. */
  metadata: {
    /** `<plural>.<group>`. */
    name: string;
    [field: string]: unknown;
  };
  /** What the resource is: group, names, scope, versions (and their schemas). */
  spec: {
    /** The API group, `example.com`. */
    group: string;
    /** Its names. */
    names: {
      /** The resource's name in URLs, `widgets`. */
      plural: string;
      /** The kind, `Widget`. */
      kind: string;
      [field: string]: unknown;
    };
    /** `Namespaced` or `Cluster`. */
    scope: 'Namespaced' | 'Cluster';
    /** Its versions. */
    versions: {
      /** The version, `v1`. */
      name: string;
      /** Served by the API: discovery lists it, once the CRD is established. */
      served: boolean;
      /** The one version objects are stored as. */
      storage: boolean;
      [field: string]: unknown;
    }[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * The CRDs of `paths` (files and folders), in order. Throws `CRDFileError`: `CRDPathMissing` for
 * a path that is not there, `CRDFileInvalid` for a file that does not parse, a CRD of another
 * apiVersion than apiextensions.k8s.io/v1 or without its name, group, plural, kind or versions, a
 * name defined twice, or a path that holds no CRD at all.
 *
 * @example
 * const crds = readCRDs(['config/crd/bases']); // controller-gen's output folder
 */
export function readCRDs(paths: readonly string[]): CustomResourceDefinition[] {
  const byName = new Map<string, { crd: CustomResourceDefinition; path: string }>();
  for (const path of paths) {
    const files = filesOf(path);
    let found = 0;
    for (const file of files) {
      for (const crd of crdsOfFile(file)) {
        const seen = byName.get(crd.metadata.name);
        if (seen)
          throw new CRDFileError('CRDFileInvalid', file, `CustomResourceDefinition ${crd.metadata.name} is also defined in ${seen.path}`);
        byName.set(crd.metadata.name, { crd, path: file });
        found++;
      }
    }
    if (found === 0)
      throw new CRDFileError(
        'CRDFileInvalid',
        path,
        `no CustomResourceDefinition in ${files.length === 1 ? 'this file' : 'the .yaml, .yml and .json files of this folder'}`,
      );
  }
  return [...byName.values()].map((v) => v.crd);
}

/** `path` itself when it is a file; a folder's YAML and JSON files, by name. */
function filesOf(path: string): string[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    throw new CRDFileError('CRDPathMissing', path, 'no such file or folder', { cause: error });
  }
  if (!isFolder) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isFile() && EXTENSIONS.has(extname(e.name).toLowerCase()))
    .map((e) => join(path, e.name))
    .sort();
}

/** The CRDs of one file: its documents that are CustomResourceDefinitions, checked. */
function crdsOfFile(file: string): CustomResourceDefinition[] {
  const text = readFileSync(file, 'utf8');
  const docs = extname(file).toLowerCase() === '.json' ? [parseJson(file, text)] : parseYaml(file, text);
  const crds: CustomResourceDefinition[] = [];
  docs.forEach((doc, i) => {
    const where = docs.length > 1 ? `document ${i + 1}` : 'the document';
    if (doc === null || doc === undefined) return; // an empty document: `---` at the end
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new CRDFileError('CRDFileInvalid', file, `${where} is not an object`);
    const obj = doc as Record<string, unknown>;
    if (obj.kind !== 'CustomResourceDefinition') return;
    if (obj.apiVersion !== 'apiextensions.k8s.io/v1')
      throw new CRDFileError(
        'CRDFileInvalid',
        file,
        `${where} is a CustomResourceDefinition of ${String(obj.apiVersion)}: only apiextensions.k8s.io/v1 is served (since Kubernetes 1.22)`,
      );
    const missing = missingField(obj as Partial<CustomResourceDefinition>);
    if (missing) throw new CRDFileError('CRDFileInvalid', file, `${where} (a CustomResourceDefinition) has no ${missing}`);
    crds.push(obj as CustomResourceDefinition);
  });
  return crds;
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CRDFileError('CRDFileInvalid', file, `not JSON: ${(error as Error).message}`, { cause: error });
  }
}

function parseYaml(file: string, text: string): unknown[] {
  return parseAllDocuments(text).map((doc, i) => {
    const error = doc.errors[0];
    if (error) throw new CRDFileError('CRDFileInvalid', file, `document ${i + 1} is not YAML: ${error.message}`, { cause: error });
    return doc.toJS() as unknown;
  });
}

/** The first field a CRD must have that `crd` lacks (the server checks the rest). */
function missingField(crd: Partial<CustomResourceDefinition>): string | undefined {
  const nonEmpty = (v: unknown) => typeof v === 'string' && v !== '';
  if (!nonEmpty(crd.metadata?.name)) return 'metadata.name';
  if (!nonEmpty(crd.spec?.group)) return 'spec.group';
  if (!nonEmpty(crd.spec?.names?.plural)) return 'spec.names.plural';
  if (!nonEmpty(crd.spec?.names?.kind)) return 'spec.names.kind';
  if (!Array.isArray(crd.spec?.versions) || crd.spec.versions.length === 0) return 'spec.versions';
  if (crd.spec.versions.some((v) => !nonEmpty(v?.name))) return 'spec.versions[].name';
  return undefined;
}
