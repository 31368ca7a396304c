/**
 * Packs the published packages once per test run, before any consumer test: the tarballs and a
 * manifest go to a temporary directory named by `RXINFORMER_PACKED` (removed by globalTeardown).
 * A stale module planted in core's `dist/` first shows that the build starts from scratch.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAndPack, plantStaleModule } from './pack.ts';

export default function globalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-packed-'));
  const manifest = join(dir, 'manifest.json');
  plantStaleModule();
  writeFileSync(manifest, JSON.stringify(buildAndPack(dir), null, 2));
  process.env.RXINFORMER_PACKED = manifest;
}
