/** Removes the tarballs `globalSetup` packed. */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';

export default function globalTeardown(): void {
  const manifest = process.env.RXINFORMER_PACKED;
  if (manifest) rmSync(dirname(manifest), { recursive: true, force: true });
}
