import type { Config } from 'jest';

/** One jest project per package; TypeScript is transpiled by swc, type-checked separately by `tsc -b`. */
const packages = ['core', 'apiserver-sim', 'client-node', 'cli', 'browser-example'];

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'es6' },
  },
];

const config: Config = {
  projects: packages.map((name) => ({
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    extensionsToTreatAsEsm: ['.ts'],
    transform: { '^.+\\.ts$': swc },
    testEnvironment: 'node',
  })),
  testTimeout: 60_000,
};

export default config;
