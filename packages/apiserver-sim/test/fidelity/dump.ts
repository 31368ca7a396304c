/** `FIDELITY_DUMP=DIR`: each case's two transcripts written as JSON (keys sorted), for a line diff of what differs. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
        )
      : v;

/** Writes `DIR/<case>.sim.json` and `DIR/<case>.real.json`. */
export function dump(dir: string, name: string, sim: unknown, real: unknown): void {
  mkdirSync(dir, { recursive: true });
  const file = name.replace(/[^a-z0-9]+/gi, '-');
  writeFileSync(join(dir, `${file}.sim.json`), JSON.stringify(sorted(sim), null, 1));
  writeFileSync(join(dir, `${file}.real.json`), JSON.stringify(sorted(real), null, 1));
}
