import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// recipes.md shows excerpts of the recipes' code (docs/recipes/*.ts, which `tsc -b` checks and the
// recipes' tests run): an excerpt edited apart from its recipe may no longer compile when pasted.

const docs = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(docs + path, 'utf8');

/** The first `ts` block of the section (`##`) or subsection (`###`) of recipes.md titled `heading`. */
function snippet(heading: string): string {
  const text = read('recipes.md');
  const at = Math.max(text.indexOf(`\n## ${heading}\n`), text.indexOf(`\n### ${heading}\n`));
  const block = at < 0 ? null : /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`recipes.md has no ts block under "## ${heading}"`);
  return block[1];
}

/** The lines of `code` without leading blanks, comments dropped, joined: to compare code across line breaks. */
const flat = (code: string) =>
  code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//') && !l.startsWith('/**'))
    .join(' ');

describe('recipes.md', () => {
  it("should show the metadata-only recipe's indexer as it compiles in podOwners.ts", () => {
    // It showed `(p.metadata.ownerReferences ?? []).filter((o) => o.controller)`: 'o' is of type 'unknown'.
    const shown = /byOwner: (\(p\) =>[^\n]*)/.exec(snippet('A metadata-only informer'))?.[1] ?? '';
    expect(shown).not.toBe('');
    expect(flat(read('recipes/podOwners.ts'))).toContain(shown.replace(/,$/, ''));
    expect(flat(snippet('A metadata-only informer'))).toContain(flat('interface OwnerReference { uid: string; controller?: boolean; }'));
  });

  it("should show the list view's informer and rows as they compile in podListView.ts", () => {
    const code = flat(read('recipes/podListView.ts'));
    const shown = snippet('A list view with a preset').split('\n');
    // the lines of the snippet up to the rows' map, each found in the recipe
    for (const line of shown.filter((l) => l.trim() !== '' && !l.trim().startsWith('//') && !l.includes('now)')))
      expect(code).toContain(line.trim().replace(/;$/, ''));
  });

  it("should show the widget controller's reconcile as it compiles in widgetController.ts", () => {
    const code = flat(read('recipes/widgetController.ts'));
    expect(code).toContain(flat(snippet('A custom resource: CRDs from a folder, conditions, eventually and consistently')));
  });

  it("should show the replicator's reconcile as it compiles in configMapReplicator.ts", () => {
    const code = flat(read('recipes/configMapReplicator.ts'));
    expect(code).toContain(flat(snippet('A controller that writes: a ConfigMap replicator')));
  });

  it("should show the fleet recipe's provider, view and rows as they compile in fleet.ts", () => {
    expect(flat(read('recipes/fleet.ts'))).toContain(flat(snippet('A fleet over a folder of kubeconfigs')));
  });
});
