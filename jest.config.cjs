/**
 * One jest run covers unit tests beside the code and the black-box suites in test/.
 * TypeScript is compiled by swc to CommonJS for the test runtime; `.js` suffixes of
 * NodeNext imports are mapped back to the `.ts` sources, and workspace packages resolve to their
 * sources through the `@odp/source` export condition (no build needed).
 */
const esModulePackages = [
  'agenda',
  '@agendajs/mongo-backend',
  'gaxios',
  'teeny-request',
  'node-fetch',
  'fetch-blob',
  'formdata-polyfill',
  'data-uri-to-buffer',
].join('|');

module.exports = {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['@odp/source', 'node', 'node-addons'] },
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/tooling', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
      },
    ],
    // Packages that ship ES modules only (agenda, its MongoDB backend, node-fetch 3 and its
    // dependencies) or load them with import() (Google's HTTP clients): compiled like the sources.
    [`/node_modules/(${esModulePackages})/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`^(?!.*/node_modules/(${esModulePackages})/).*/node_modules/`],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 30000,
  maxWorkers: 2,
};
