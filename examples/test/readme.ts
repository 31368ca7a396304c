/** The code blocks of the repository's READMEs that consumer projects hold word for word. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './pack.ts';

/** The first `ts` (or `lang`) code block after `<!-- marker -->` in `readme` (a path from the repository's root). */
export function readmeProgram(marker: string, readme = 'README.md', lang = 'ts'): string {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const at = text.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`${readme} has no <!-- ${marker} --> block`);
  const m = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``).exec(text.slice(at));
  if (!m) throw new Error(`no ${lang} code block after <!-- ${marker} --> in ${readme}`);
  return m[1];
}
