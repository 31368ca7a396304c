import { describe, expect, it } from '@jest/globals';
import { buildPage } from './bundle.ts';

describe('buildPage', () => {
  it('should bundle the page and the core into one browser module that index.html loads', async () => {
    const page = await buildPage({ sourcemap: false });
    expect(page.html).toContain('<script type="module" src="/app.js"></script>');
    expect(page.js).toContain('function fetchListerWatcher(');
    expect(page.js).toContain('function createSharedInformer(');
    expect(page.js).not.toMatch(/\bimport\s*(\{|\*|\w+\s+from)|require\(/); // self-contained: nothing left to resolve
    expect(page.js).not.toContain('sourceMappingURL');
  });

  it('should bundle the core from its TypeScript source, never from a dist/ build', async () => {
    const { inputs } = await buildPage({ sourcemap: false });
    expect(inputs).toContain('packages/core/src/informer/sharedInformer.ts');
    expect(inputs.filter((f) => f.startsWith('packages/') && f.includes('/dist/'))).toEqual([]);
  });

  it('should minify and inline a source map on request', async () => {
    const [plain, small] = await Promise.all([buildPage({ sourcemap: false }), buildPage({ minify: true, sourcemap: true })]);
    expect(small.js).toContain('sourceMappingURL=data:application/json');
    expect(small.js.slice(0, small.js.indexOf('//# sourceMappingURL')).length).toBeLessThan(plain.js.length * 0.7);
  });
});
