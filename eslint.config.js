// ESLint for the whole repository: typescript-eslint's recommended rules, type-aware through the
// project service. typescript-eslint needs TypeScript's JS API, which the root's native TypeScript 7
// lacks, so it is installed apart in tools/lint (its own lockfile and TypeScript 5.9) and loaded from
// there.
import { createRequire } from 'node:module';

const require = createRequire(new URL('./tools/lint/package.json', import.meta.url));
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');

const tests = ['**/*.test.ts', '**/test/**/*.ts', '**/bench/**/*.ts', 'docs/recipes/*.measure.ts', 'packages/testing/servers/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', '.types/', 'coverage/', 'docs/api/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['jest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'prefer-const': ['error', { destructuring: 'all' }],
      // Judged by typescript-eslint's TypeScript 5.9, not by the TypeScript 7 that checks and builds
      // the code: the two disagree on some assertions (removing them broke the build).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The packages' code: files under 400 lines, functions under 80 (blank lines and comments not
    // counted); aim for 300 and 60. Tests, and tables a script generates, are not held to it.
    files: ['packages/*/src/**/*.ts'],
    ignores: [...tests, '**/*.generated.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests and benchmarks read decoded JSON and poke at internals: the any-safety rules would only
    // add casts there. Everything else applies.
    files: tests,
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The Angular example has its own tsconfig (bundler resolution, like the Angular CLI's), which
    // includes none of its files; examples/tsconfig.angular.json does, with the packages' source.
    files: ['examples/angular/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['examples/tsconfig.angular.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The consumer templates resolve our packages as users do, to dist/ (absent in a fresh clone):
    // linted with the repository's view of them instead (examples/tsconfig.json, source condition).
    files: [
      'examples/node-esm/src/**/*.ts',
      'examples/browser-bundle/src/**/*.ts',
      'examples/react/src/**/*.tsx',
      'examples/dashboard/src/**/*.{ts,tsx}',
      'examples/dashboard/server/**/*.ts',
    ],
    languageOptions: { parserOptions: { projectService: false, project: ['examples/tsconfig.json'] } },
  },
  {
    // A CommonJS project, and the dashboard's Vite config (Vite is installed in the consumer only):
    // type-checked by their consumer tests only.
    files: ['examples/node-cjs/src/**/*.ts', 'examples/dashboard/vite.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // node:test suites: the runner awaits what test() returns, the file does not (as node's docs write them).
    files: ['**/*.node-test.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  {
    // The terminal view and its tests match control characters (escape codes) on purpose.
    files: ['packages/cli/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
);
