import type { Config } from 'jest';

/** One jest project per package (and one for the docs' recipes); TypeScript is transpiled by swc, type-checked separately by `tsc -b`. */
const packages = [
  'core',
  'testing',
  'apiserver-sim',
  'client-node',
  'envtest',
  'prometheus',
  'controller',
  'cli',
  'browser-example',
  'angular',
  'react',
  'hub',
];

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'es6' },
  },
];

const project = (displayName: string, rootDir: string, testMatch: string[]) => ({
  displayName,
  rootDir,
  testMatch,
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
  // The workspace packages resolve to their TypeScript source, never to a dist/ that may be stale.
  testEnvironmentOptions: { customExportConditions: ['@rxinformer/source', 'node', 'node-addons'] },
});

const config: Config = {
  projects: [
    ...packages.map((name) => project(name, `<rootDir>/packages/${name}`, ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'])),
    project('docs', '<rootDir>/docs', ['<rootDir>/recipes/**/*.test.ts', '<rootDir>/test/**/*.test.ts']), // the recipes' code, run against the simulator; docs/api up to date
    project('replicator', '<rootDir>/examples/replicator', ['<rootDir>/**/*.test.ts']), // the example's replicas as processes, on both servers
    project('pod-reaper', '<rootDir>/examples/pod-reaper', ['<rootDir>/**/*.test.ts']), // the example as a process, on both servers
    // The packed tarballs, checked and installed into consumer projects outside the repository.
    {
      ...project('examples', '<rootDir>/examples', ['<rootDir>/test/**/*.test.ts']),
      globalSetup: '<rootDir>/test/globalSetup.ts',
      globalTeardown: '<rootDir>/test/globalTeardown.ts',
    },
  ],
  testTimeout: 60_000,
};

export default config;
