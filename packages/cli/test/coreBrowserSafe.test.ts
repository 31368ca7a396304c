import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Core runs in browsers: its sources may import only rxjs, immer and each other.
describe('@rxinformer/core sources', () => {
  it('should import nothing Node-only', () => {
    const dir = join(import.meta.dirname, '..', '..', 'core', 'src');
    const offenders: string[] = [];
    const walk = (d: string): void => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        const path = join(d, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          for (const m of readFileSync(path, 'utf8').matchAll(/from\s+'([^']+)'/g)) {
            const spec = m[1];
            if (!(spec.startsWith('.') || spec === 'rxjs' || spec.startsWith('rxjs/') || spec === 'immer'))
              offenders.push(`${entry.name}: ${spec}`);
          }
        }
      }
    };
    walk(dir);
    expect(offenders).toEqual([]);
  });
});
