/**
 * The simulator's source follows a request down (README, "Layout"): every module of `src` sits in
 * one layer and imports only modules of its own layer or of the layers below, with no cycle.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** The layers, top first. */
const LAYERS: readonly (readonly string[])[] = [
  // entry points
  ['index', 'main', 'command'],
  // HTTP
  ['server', 'router'],
  // request handlers, and the load generator (which writes through the object store as they do)
  [
    'resourceRequest',
    'collectionRequest',
    'deleteRequest',
    'patchRequest',
    'discovery',
    'control',
    'requestContext',
    'loadGenerator',
    'httpChurnTarget',
    'changeQueue',
    'authorization',
    'reviews',
  ],
  // watch streams and faults
  ['watchSession', 'watchEvents', 'watchHub', 'faults'],
  // object semantics
  [
    'objects',
    'creation',
    'update',
    'deletion',
    'objectMeta',
    'storedForm',
    'writeContext',
    'serverSideApply',
    'applyConflicts',
    'applyPrune',
    'updateOwnership',
    'managedFields',
    'listPages',
    'rbac',
  ],
  // storage
  ['storage', 'historyWindow', 'sortedCollection', 'leaseHistory'],
  // helpers: the protocol's, and files
  [
    'requestUrl',
    'requestBody',
    'responses',
    'rendering',
    'status',
    'serialize',
    'lineBatch',
    'selectors',
    'shardSelector',
    'fieldSelector',
    'table',
    'tableColumns',
    'age',
    'protobuf',
    'protobufWire',
    'protobufSchemas',
    'jsonPatch',
    'strategicMerge',
    'listMergeStrategies',
    'json',
    'resources',
    'validation',
    'objectKeys',
    'random',
    'kubeconfig',
    'privateFile',
    'realisticPod',
    'timers',
  ],
];

const layerOf = new Map(LAYERS.flatMap((modules, layer) => modules.map((m) => [m, layer] as const)));

const modules = readdirSync(src)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

/** The modules of `src` that `module` imports (types included) or re-exports. */
function importsOf(module: string): string[] {
  const text = readFileSync(`${src}${module}.ts`, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'\.\/(\w+)\.ts'/gm)].map((m) => m[1]);
}

describe('the layout of src', () => {
  it('should place every module in exactly one layer', () => {
    expect(modules.filter((m) => !layerOf.has(m))).toEqual([]);
    expect([...layerOf.keys()].filter((m) => !modules.includes(m))).toEqual([]);
    expect(layerOf.size).toBe(LAYERS.flat().length);
  });

  it('should import only from the same layer or the layers below', () => {
    const upward = modules.flatMap((m) =>
      importsOf(m)
        .filter((i) => (layerOf.get(i) ?? Infinity) < (layerOf.get(m) ?? -1))
        .map((i) => `${m} -> ${i}`),
    );
    expect(upward).toEqual([]);
  });

  it('should have no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (m: string, path: string[]): void => {
      if (state.get(m) === 'done') return;
      if (state.get(m) === 'open') {
        cycles.push([...path.slice(path.indexOf(m)), m].join(' -> '));
        return;
      }
      state.set(m, 'open');
      for (const i of importsOf(m)) visit(i, [...path, m]);
      state.set(m, 'done');
    };
    for (const m of modules) visit(m, []);
    expect(cycles).toEqual([]);
  });
});
