/**
 * Generates `packages/client-node/src/protobuf/schema.generated.ts`, the table the protobuf wire
 * decodes built-in objects with, from the Go module cache (the modules envtest's go.mod pins, never
 * committed here): each message's fields from the `generated.proto` files of k8s.io/api (every GA
 * group version) and k8s.io/apimachinery, and each field's JSON name, omitempty, omitzero, pointer
 * and inline from the struct tags of the Go types the messages are generated from — what a
 * `.proto` file does not say, and what the JSON path's objects depend on.
 *
 *   node packages/client-node/scripts/protobufSchema.ts           # writes the table
 *   node packages/client-node/scripts/protobufSchema.ts --check   # exits 1 when the committed table differs
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';

const ROOT = new URL('../../..', import.meta.url).pathname;
export const SCHEMA_FILE = join(ROOT, 'packages/client-node/src/protobuf/schema.generated.ts');

/** The version of k8s.io/api (and apimachinery) envtest's go.mod pins. */
function pinnedVersion(module: string): string {
  const mod = readFileSync(join(ROOT, 'packages/envtest/testenv/go.mod'), 'utf8');
  const m = new RegExp(`^\\s*${module.replace(/\./g, '\\.')} v(\\S+)`, 'm').exec(mod);
  if (!m) throw new Error(`${module} is not in packages/envtest/testenv/go.mod`);
  return `v${m[1]}`;
}

/** Where the Go module cache holds `module@version`, or undefined when it is not there. */
export function moduleDir(module: string): string | undefined {
  let cache = process.env.GOMODCACHE;
  if (!cache) {
    try {
      cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  }
  const dir = join(cache, `${module}@${pinnedVersion(module)}`);
  return existsSync(dir) ? dir : undefined;
}

interface ProtoField {
  num: number;
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
}

interface GoField {
  json: string;
  flags: string;
}

/** The messages of one generated.proto: name → fields; types qualified with the short package. */
function parseProto(text: string, short: (pkg: string) => string): { pkg: string; messages: Map<string, ProtoField[]> } {
  const body = text.replace(/\/\/.*$/gm, '');
  const pkg = /^package\s+([\w.]+);/m.exec(body)![1];
  const messages = new Map<string, ProtoField[]>();
  for (const m of body.matchAll(/^message\s+(\w+)\s*\{([^}]*)\}/gm)) {
    const fields: ProtoField[] = [];
    for (const f of m[2].matchAll(/^\s*(?:(optional|repeated)\s+([\w.]+)|map<string,\s*([\w.]+)>)\s+(\w+)\s*=\s*(\d+)/gm)) {
      const raw = f[2] ?? f[3];
      const type = raw.startsWith('.') ? short(raw.slice(1)) : (SCALARS[raw] ?? `${short(pkg)}.${raw}`);
      fields.push({ num: Number(f[5]), name: f[4], type, repeated: f[1] === 'repeated', map: f[3] !== undefined });
    }
    messages.set(m[1], fields);
  }
  return { pkg, messages };
}

/** The messages whose Go types marshal JSON their own way (see the decoder's `special`). */
const CUSTOM_JSON = new Set([
  'meta.v1.Time',
  'meta.v1.MicroTime',
  'meta.v1.Duration',
  'meta.v1.FieldsV1',
  'resource.Quantity',
  'resource.QuantityValue',
  'intstr.IntOrString',
  'runtime.RawExtension',
  'runtime.Unknown',
]);

const SCALARS: Record<string, string> = { string: 's', bytes: 'y', int32: 'i', int64: 'l', bool: 'b' };

/** The Go structs of a package: type name → protobuf field number → JSON name and flags; and the named slice types. */
function parseGo(
  dir: string,
  meta?: Map<string, Map<number, GoField>>,
): { structs: Map<string, Map<number, GoField>>; slices: Set<string>; group?: string } {
  const structs = new Map<string, Map<number, GoField>>();
  const slices = new Set<string>();
  let group: string | undefined;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    group ??= /^const GroupName = "([^"]*)"/m.exec(text)?.[1];
    for (const s of text.matchAll(/^type (\w+) \[\]/gm)) slices.add(s[1]);
    // `type List metav1.List`: the meta struct's tags.
    for (const s of text.matchAll(/^type (\w+) metav1\.(\w+)$/gm)) if (meta?.has(s[2])) structs.set(s[1], meta.get(s[2])!);
    for (const s of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields = new Map<number, GoField>();
      for (const f of s[2].matchAll(/^\t(?:\w+\s+)?(\S+)\s+`([^`]*)`/gm)) {
        const json = /json:"([^"]*)"/.exec(f[2])?.[1];
        const proto = /protobuf:"\w+,(\d+),/.exec(f[2]);
        if (json === undefined || !proto) continue;
        const [name, ...opts] = json.split(',');
        let flags = f[1].startsWith('*') ? 'p' : '';
        if (opts.includes('omitempty')) flags += 'e';
        if (opts.includes('omitzero')) flags += 'z';
        if (opts.includes('inline')) flags += 'i';
        if (name === '-') flags += 'x';
        fields.set(Number(proto[1]), { json: name, flags });
      }
      structs.set(s[1], fields);
    }
  }
  return { structs, slices, group };
}

/** The short package names used in the table: `core.v1`, `meta.v1`, `resource`, `intstr`, `runtime`. */
function shortName(pkg: string): string {
  return pkg
    .replace(/^k8s\.io\.api\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\.(api\.|util\.)?/, '');
}

/** The packages the table covers: every GA group version of k8s.io/api, and what they use of apimachinery. */
function packageDirs(api: string, machinery: string): string[] {
  const dirs: string[] = [];
  for (const group of readdirSync(api).sort()) {
    if (!existsSync(join(api, group)) || group.startsWith('.')) continue;
    let versions: string[];
    try {
      versions = readdirSync(join(api, group));
    } catch {
      continue;
    }
    for (const v of versions.sort())
      if (/^v\d+$/.test(v) && existsSync(join(api, group, v, 'generated.proto'))) dirs.push(join(api, group, v));
  }
  for (const p of ['pkg/apis/meta/v1', 'pkg/api/resource', 'pkg/util/intstr', 'pkg/runtime', 'pkg/runtime/schema'])
    dirs.push(join(machinery, p));
  return dirs;
}

/** The TypeScript source of the table, formatted as the repository's prettier formats it. */
export async function generateSchema(): Promise<string> {
  const config = await prettier.resolveConfig(SCHEMA_FILE);
  return prettier.format(schemaSource(), { ...config, filepath: SCHEMA_FILE });
}

function schemaSource(): string {
  const api = moduleDir('k8s.io/api');
  const machinery = moduleDir('k8s.io/apimachinery');
  if (!api || !machinery) throw new Error('k8s.io/api and k8s.io/apimachinery are not in the Go module cache: run `npm run testenv:build`');
  const messages: string[] = [];
  const groups: string[] = [];
  const meta = parseGo(join(machinery, 'pkg/apis/meta/v1')).structs;
  for (const dir of packageDirs(api, machinery)) {
    const { pkg, messages: parsed } = parseProto(readFileSync(join(dir, 'generated.proto'), 'utf8'), shortName);
    const go = parseGo(dir, meta);
    const short = shortName(pkg);
    if (dir.startsWith(api)) {
      const version = dir.slice(dir.lastIndexOf('/') + 1);
      groups.push(`  ${JSON.stringify(go.group ? `${go.group}/${version}` : version)}: ${JSON.stringify(short)},`);
    }
    for (const [name, fields] of parsed) {
      const tags = go.structs.get(name);
      const parts = fields.map((f) => {
        const tag = go.slices.has(name) ? { json: f.name, flags: '' } : tags?.get(f.num);
        // The meta types with their own JSON form (Time, Quantity, IntOrString…): the decoder knows them.
        if (!tag && !CUSTOM_JSON.has(`${short}.${name}`))
          throw new Error(`${short}.${name} field ${f.num} (${f.name}) has no Go struct tag`);
        const flags = (f.repeated ? 'r' : '') + (f.map ? 'm' : '') + (tag?.flags ?? '');
        return `${f.num},${tag?.json ?? f.name},${f.type}${flags ? `,${flags}` : ''}`;
      });
      // A named slice (`type ExtraValue []string`) is an array in JSON: its items field, unwrapped.
      if (go.slices.has(name)) parts.unshift('=');
      messages.push(`  ${JSON.stringify(`${short}.${name}`)}: ${JSON.stringify(parts.join(';'))},`);
    }
  }
  return [
    `// Generated by packages/client-node/scripts/protobufSchema.ts from k8s.io/api ${pinnedVersion('k8s.io/api')} and k8s.io/apimachinery`,
    `// ${pinnedVersion('k8s.io/apimachinery')} (generated.proto and the Go struct tags): do not edit.`,
    '// Each field: `number,jsonName,type[,flags]`; types s string, y bytes, i int32, l int64, b bool, else a',
    '// message; flags r repeated, m map<string, type>, p pointer, e omitempty, z omitzero, i inline, x not in JSON.',
    "// A message starting with `=` is a Go named slice: JSON holds its one field's items as an array.",
    '',
    '/** The group versions whose objects the table decodes: `apiVersion` → package. */',
    'export const PROTOBUF_GROUP_VERSIONS: Readonly<Record<string, string>> = {',
    ...groups,
    '};',
    '',
    '/** Every message, by `package.Name`. */',
    'export const PROTOBUF_MESSAGES: Readonly<Record<string, string>> = {',
    ...messages,
    '};',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await generateSchema();
  if (process.argv.includes('--check')) {
    const current = existsSync(SCHEMA_FILE) ? readFileSync(SCHEMA_FILE, 'utf8') : '';
    if (current !== text) {
      console.error(`${SCHEMA_FILE} is not current: run node packages/client-node/scripts/protobufSchema.ts`);
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA_FILE, text);
    console.log(`wrote ${SCHEMA_FILE} (${text.length} bytes)`);
  }
}
