/**
 * Unit specs beside the code (no sockets, no database), medium specs (a few providers on the real
 * database), e2e specs that boot AppModule over HTTP, and e2e specs that must run alone. TypeScript
 * is transpiled by swc, with the decorator metadata Nest's dependency injection and class-validator
 * read; types are checked by `npm run typecheck`, not here.
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
  // Migrates one database (a PGlite data directory, or a PostgreSQL template database) that every
  // test app and medium module then starts from; see test/support/template-database.ts. Shared by
  // the projects below: jest runs one globalSetup file once per run, however many projects name it.
  globalSetup: '<rootDir>/support/global-setup.ts',
  globalTeardown: '<rootDir>/support/global-teardown.ts',
};
module.exports = {
  projects: [
    { ...base, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    { ...e2e, displayName: 'e2e', testRegex: '.*\\.e2e-spec\\.ts$' },
    // Services and their SQL on the real database, without HTTP (test/medium/): the same template
    // database and the same two engines as e2e, a module of a few providers instead of the app.
    { ...e2e, displayName: 'medium', testRegex: '.*\\.medium-spec\\.ts$' },
    // Tests with a wall-clock bound (*.alone-spec.ts, under test/ or beside the code they time),
    // which a loaded machine can break: `npm test` runs them in a second jest run, after the
    // others, one file at a time (scripts/test.sh), and retries a failed test once.
    {
      ...e2e,
      displayName: 'e2e-alone',
      roots: ['<rootDir>', '<rootDir>/../src'],
      testRegex: '.*\\.alone-spec\\.ts$',
      setupFilesAfterEnv: ['<rootDir>/support/retry-once.ts'],
    },
  ],
  // Files run in parallel (each test app has a database of its own). Three workers on this 2-core
  // machine: e2e files spend much of their time waiting (timers, child processes, fakes), and a
  // third worker took `npm test` from 200 s to 174 s; see README, Testing.
  maxWorkers: 3,
  testTimeout: 60000,
};
