/**
 * Two projects: unit specs beside the code (no sockets, no database), e2e specs that boot AppModule
 * over HTTP. TypeScript is transpiled by swc, with the decorator metadata Nest's dependency
 * injection and class-validator read; types are checked by `npm run typecheck`, not here.
 */
const base = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  testEnvironment: 'node',
};
const e2e = {
  ...base,
  rootDir: 'test',
  testRegex: '.*\\.e2e-spec\\.ts$',
  // Migrates one database (a PGlite data directory, or a PostgreSQL template database) that every
  // test app then starts from; see test/support/template-database.ts.
  globalSetup: '<rootDir>/support/global-setup.ts',
  globalTeardown: '<rootDir>/support/global-teardown.ts',
};
/** Timed against a bound (/health while hostile input runs): never beside another file's load. */
const ALONE = ['event-loop\\.e2e-spec\\.ts$'];
module.exports = {
  projects: [
    { ...base, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    { ...e2e, displayName: 'e2e', testPathIgnorePatterns: ALONE },
    // Services and their SQL on the real database, without HTTP (test/medium/): the same template
    // database and the same two engines as e2e, a module of a few providers instead of the app.
    { ...e2e, displayName: 'medium', testRegex: '/medium/.*\\.medium-spec\\.ts$' },
    // `npm test` and `npm run test:e2e` run this project in a second jest run, after the others.
    { ...e2e, displayName: 'e2e-alone', testRegex: ALONE },
  ],
  // Files run in parallel (each test app has a database of its own). Three workers on this 2-core
  // machine: e2e files spend much of their time waiting (timers, child processes, fakes), and a
  // third worker took `npm test` from 200 s to 174 s; see README, Testing.
  maxWorkers: 3,
  testTimeout: 60000,
};
