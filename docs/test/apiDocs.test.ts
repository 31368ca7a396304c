import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// docs/api is generated (`npm run docs:api`) and committed, so it can drift from the code without
// anyone noticing. This test generates it afresh into a temporary folder and compares, with TypeDoc's
// warnings as errors: an exported API without a doc comment fails here too.

const docs = fileURLToPath(new URL('..', import.meta.url));
const typedoc = join(docs, 'node_modules/typedoc/bin/typedoc');

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(relative(dir, path), readFileSync(path, 'utf8'));
  }
  return out;
}

describe('docs/api', () => {
  it('should be what `npm run docs:api` generates from the code today, with every public API documented', () => {
    const out = mkdtempSync(join(tmpdir(), 'rxinformer-api-'));
    try {
      const run = spawnSync(process.execPath, [typedoc, '--options', 'typedoc.json', '--out', out, '--treatWarningsAsErrors'], {
        cwd: docs,
        encoding: 'utf8',
      });
      expect({ status: run.status, output: run.status === 0 ? '' : `${run.stdout}${run.stderr}` }).toEqual({ status: 0, output: '' });
      const fresh = files(out);
      const committed = files(join(docs, 'api'));
      const stale = [...new Set([...fresh.keys(), ...committed.keys()])].filter((f) => fresh.get(f) !== committed.get(f)).sort();
      // Non-empty: run `npm run docs:api` and commit docs/api.
      expect(stale).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
