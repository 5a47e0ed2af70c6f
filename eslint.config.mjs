import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

// class-validator's IsOptional lets null through; request DTOs use IsOptionalNotNull.
const IS_OPTIONAL_IN_DTOS = {
  name: 'class-validator',
  importNames: ['IsOptional'],
  message:
    'Use IsOptionalNotNull (src/common/http/validation.decorators.ts): IsOptional accepts null.',
};
const DTO_FILES = ['src/**/dto/**/*.ts', 'src/common/http/**/*.ts'];

/*
 * Module boundaries (docs/architecture.md, "Module boundaries"). Each feature module, with the
 * feature modules it may import; any module may import the shared kernel (common/, config/,
 * database/) by path. A module imports another only through its public file,
 * src/<module>/index.ts, never src/<module>/<anything>.
 */
const MAY_IMPORT = {
  metrics: [],
  health: [],
  'agent-events': ['metrics', 'health'],
  tools: ['metrics', 'health'],
  channels: ['agent-events', 'metrics', 'health'],
  scheduler: ['channels', 'tools', 'agent-events', 'metrics', 'health'],
  'agentline-toolkit': ['scheduler', 'channels', 'tools', 'metrics', 'health'],
  'mcp-server': ['tools', 'metrics', 'health'],
  sandbox: ['channels', 'metrics', 'health'],
};
const FEATURES = Object.keys(MAY_IMPORT);

/** The composition root: it wires the modules together, through their index files. */
const ROOT_NAMES = ['app.module', 'app.setup', 'main', 'cli'];
const ROOT_FILES = ['src/app.module.ts', 'src/app.setup.ts', 'src/main.ts', 'src/cli/**/*.ts'];

/*
 * Patterns match the import as written, a relative path: any number of `../` (or `./` from src/
 * itself) then the folder's name. No folder inside a module has the name of a module, so the
 * name after the dots is always a folder of src/.
 */
const UP = '^\\.\\.?/(\\.\\./)*';
const escape = (name) => name.replace(/[.]/g, '\\.');

/** Any import of `name` (its index or its files). */
const anyOf = (name, message) => ({
  regex: `${UP}${escape(name)}(/|$)`,
  caseSensitive: true,
  message,
});
/** An import of a file inside `name`: anything but its index. */
const insideOf = (name) => ({
  regex: `${UP}${escape(name)}/`,
  caseSensitive: true,
  message: `Import what ${name} exports from its public file, src/${name}/index.ts (as '…/${name}'), not its inner files (docs/architecture.md, "Module boundaries").`,
});
const forbidden = (importer, name, why) =>
  anyOf(
    name,
    `${importer} may not import ${name}: ${why} (docs/architecture.md, "Module boundaries").`,
  );

/** Nothing but app.module imports agentline-toolkit: it sits on top of everything. */
const agentlineToolkit = (importer) =>
  forbidden(importer, 'agentline-toolkit', 'only app.module wires it in');
/** Others may reach a module through its index only. */
const publicFilesOnly = (self) =>
  FEATURES.filter((name) => name !== self).map((name) => insideOf(name));
const compositionRoot = (importer) =>
  ROOT_NAMES.map((name) =>
    forbidden(importer, name, 'the composition root imports modules, not the reverse'),
  );

/** What files of feature module `name` may not import; `tests` skips the public-file rule. */
function featurePatterns(name, { tests }) {
  const direction = FEATURES.filter(
    (other) => other !== name && !MAY_IMPORT[name].includes(other),
  ).map((other) =>
    forbidden(name, other, `it may import ${MAY_IMPORT[name].join(', ') || 'no feature module'}`),
  );
  return [...direction, ...compositionRoot(name), ...(tests ? [] : publicFilesOnly(name))];
}

const KERNEL = {
  common: ['database', ...FEATURES],
  database: FEATURES,
  config: ['common', 'database', ...FEATURES],
};
const kernelPatterns = (name) => [
  ...KERNEL[name].map((other) =>
    forbidden(
      name,
      other,
      `the kernel imports down only (common may use config; database may use common and config)`,
    ),
  ),
  ...compositionRoot(name),
];

/**
 * One block per area, and the same patterns again, with IsOptional's ban, for its DTO files: the
 * last block that sets a rule for a file gives the rule's whole options.
 */
function restrict(files, patterns, ignores = []) {
  const rule = (paths) => ({
    'no-restricted-imports': ['error', { ...(paths && { paths }), patterns }],
  });
  return [
    { files, ignores, rules: rule() },
    {
      files: files.flatMap((glob) => DTO_FILES.map((dto) => [glob, dto].flat())),
      ignores,
      rules: rule([IS_OPTIONAL_IN_DTOS]),
    },
  ];
}

const TESTS = '**/*.spec.ts';
const boundaries = [
  ...FEATURES.flatMap((name) => [
    ...restrict([`src/${name}/**/*.ts`], featurePatterns(name, { tests: false }), [TESTS]),
    ...restrict([[`src/${name}/**/*.ts`, TESTS]], featurePatterns(name, { tests: true })),
  ]),
  ...Object.keys(KERNEL).flatMap((name) => restrict([`src/${name}/**/*.ts`], kernelPatterns(name))),
  ...restrict(ROOT_FILES, publicFilesOnly(undefined)),
  ...restrict(
    ROOT_FILES.filter((file) => file !== 'src/app.module.ts'),
    [...publicFilesOnly(undefined), agentlineToolkit('this part of the composition root')],
  ),
];

/*
 * Every variable is read through its module's declared class (`@Env`,
 * src/config/env-declaration.ts), so that .env.example and README list it: no named read of
 * process.env, or of any `env` object (`deps.env.X`), in src/. The whole environment is passed on
 * (`readConfiguration(process.env)`) and each module's class reads it.
 */
const UNDECLARED_READ =
  'Declare the variable with @Env on its module’s environment class and read it from there (docs/configuration.md).';
const ENVIRONMENT_READS = [
  "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name='env']:not(UnaryExpression[operator='delete'] > MemberExpression)",
  "VariableDeclarator[init.type='MemberExpression'][init.object.name='process'][init.property.name='env'] > ObjectPattern",
  "MemberExpression[object.name='env'][property.name=/^[A-Z][A-Z0-9_]*$/]",
  "MemberExpression[object.name='env'][property.value=/^[A-Z][A-Z0-9_]*$/]",
  "MemberExpression[object.property.name='env'][property.name=/^[A-Z][A-Z0-9_]*$/]",
  "MemberExpression[object.property.name='env'][property.value=/^[A-Z][A-Z0-9_]*$/]",
].map((selector) => ({ selector, message: UNDECLARED_READ }));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '*.js', '*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: DTO_FILES,
    rules: { 'no-restricted-imports': ['error', { paths: [IS_OPTIONAL_IN_DTOS] }] },
  },
  ...boundaries,
  {
    files: ['src/**/*.ts'],
    ignores: [TESTS],
    rules: { 'no-restricted-syntax': ['error', ...ENVIRONMENT_READS] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/cli/**/*.ts', '**/*.spec.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // The sandbox chat view's page script: plain JavaScript run by the browser as a module.
    files: ['src/sandbox/chat-view/page/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          ...['document', 'location', 'sessionStorage', 'fetch', 'URL', 'AbortController'],
          ...['TextDecoderStream', 'setTimeout', 'clearTimeout'],
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
