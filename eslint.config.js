// The house rules a tool can hold (CONTRIBUTING.md "Lint and format"):
// typescript-eslint's type-checked strict rules, doc-comment syntax, and the
// import rules that encode the layers (CONTRIBUTING.md "Layers").
// `npm run lint` runs it; CI runs it before the tests.
import eslint from '@eslint/js';
import tsdoc from 'eslint-plugin-tsdoc';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

/** Node's built-in modules, with and without the `node:` prefix. */
const NODE_BUILTINS = [
  'node:*',
  ...[
    'assert',
    'buffer',
    'child_process',
    'crypto',
    'events',
    'fs',
    'fs/*',
    'http',
    'https',
    'net',
    'os',
    'path',
    'process',
    'stream',
    'stream/*',
    'url',
    'util',
    'worker_threads',
    'zlib',
  ],
];

/**
 * One `no-restricted-imports` per layer. typescript-eslint's variant is used
 * so a rule can let type imports through (they are erased).
 */
const restrict = (patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });

/** The format package: nothing of the other packages; from Node, crypto and buffer (and `also`). */
const manifestImports = (also) => [
  { group: ['@brickpost/*'], message: 'the format package imports nothing of the other packages' },
  {
    group: [...NODE_BUILTINS, ...['crypto', 'buffer', ...also].flatMap((m) => [`!${m}`, `!node:${m}`])],
    message: `the format package uses only ${['crypto', 'buffer', ...also].join(', ')} from Node`,
  },
];

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'apps/desktop/renderer/web/**',
      'packages/native/**',
      'bench/**',
      'scripts/**',
      'apps/*/scripts/**',
      'apps/cli/bin/**',
      'test/fixtures/**',
      'eslint.config.js',
    ],
  },
  {
    files: ['**/*.ts', '**/*.cts'],
    extends: [eslint.configs.recommended, tseslint.configs.strictTypeChecked],
    plugins: { tsdoc },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'tsdoc/syntax': 'error',
      // Messages interpolate counts, sizes and flags as they are.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // noUncheckedIndexedAccess is on; `!` marks an index or lookup the code
      // has just bounded (a checked length, a key it put there). Rewriting each
      // as a runtime check would add branches that cannot run.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `(x) => void f(x)`, `() => sink(event)` and `(e) => (e.preventDefault(),
      // go.click())` as callbacks are the house's shorthand.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Functions are async to meet an async interface (the bridge, the host,
      // a lock's release) even where this one does not wait.
      '@typescript-eslint/require-await': 'off',
      // A caught value is rethrown or passed on as it came (typed unknown).
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `_` names a binding that is there for its position only.
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
      // Strings are built with + from numbers as well (bech32, hex, paths).
      '@typescript-eslint/restrict-plus-operands': ['error', { allowNumberAndString: true }],
      // `cond ? a() : b()`, `x && f()` and `a(), b()` as statements are house
      // shorthand.
      '@typescript-eslint/no-unused-expressions': 'off',
      // A drive is untrusted input, and the platform varies: the code checks
      // values the types call impossible where they come from outside (parsed
      // drive data, constants a platform may lack, unions a newer format may
      // widen), and keeps those checks.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Messages quote a bad value from a drive as it is (String(value)),
      // whatever its type: that is the point of the message.
      '@typescript-eslint/no-base-to-string': 'off',
      // Names, paths and terminal output are filtered for control characters
      // on purpose (a drive is untrusted input): those regexes name them.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/test/**/*.ts'],
    rules: {
      // node:test's test() and describe() return promises the runner awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // Tests parse the JSON a command prints (`--json`, reports, NDJSON
      // events) and assert on its fields: the parsed value is `any` by
      // design, and its shape is what the test checks.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Test bodies are async for the runner whether or not they await.
      '@typescript-eslint/require-await': 'off',
      // A test's rejection handler types the error as the shape it asserts.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
    },
  },
  {
    // The tests are no package's sources: tsconfig.test.json type-checks them (Vitest runs them from source).
    files: ['packages/*/test/**/*.ts', 'apps/*/test/**/*.ts', 'test/**/*.ts', 'vitest.config.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The renderer and its browser bridge build with their own tsconfig (DOM, no Node).
    files: ['apps/desktop/renderer/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['apps/desktop/tsconfig.renderer.json'], tsconfigRootDir: import.meta.dirname },
    },
  },

  // Layers (CONTRIBUTING.md "Layers"): dependencies flow manifest ← engine ← apps.
  {
    files: ['packages/manifest/src/**/*.ts'],
    ignores: ['packages/manifest/src/spec.ts'],
    rules: restrict(manifestImports([])),
  },
  {
    // spec.ts reads FORMAT.md to copy it onto drives.
    files: ['packages/manifest/src/spec.ts'],
    rules: restrict(manifestImports(['fs', 'fs/*'])),
  },
  {
    files: ['packages/engine/src/**/*.ts', 'packages/engine/test/**/*.ts'],
    rules: restrict([
      { group: ['@brickpost/cli', '@brickpost/cli/*', '@brickpost/desktop', '@brickpost/desktop/*'], message: 'the engine never imports an app' },
      { group: ['**/apps/**'], message: 'the engine never imports an app' },
    ]),
  },
  {
    files: ['apps/cli/src/**/*.ts', 'apps/desktop/src/**/*.ts', 'apps/desktop/src/**/*.cts'],
    rules: restrict([
      {
        group: ['@brickpost/engine/*', '!@brickpost/engine/api', '!@brickpost/engine/plan', '!@brickpost/engine/report-html'],
        message:
          "an app uses the engine through its entry ('@brickpost/engine': the Engine), its contract ('@brickpost/engine/api') and the pure renderers behind their subpaths (plan, report-html)",
      },
      {
        group: ['@brickpost/manifest', '@brickpost/manifest/*', '@brickpost/native', '@brickpost/native/*', '@brickpost/posix', '@brickpost/posix/*'],
        message: 'an app imports the engine only',
      },
      { group: ['better-sqlite3', 'zstd-napi', 'qrcode'], message: "an app imports the engine only; the engine's dependencies are its own" },
      { group: ['**/packages/**'], message: 'an app imports the engine by its package name, not by path' },
    ]),
  },
  {
    // No Node in the renderer: it runs in a browser page with no module
    // resolution; the engine's api is imported for its types only
    // (test/desktop/renderer-imports.test.ts checks the compiled files).
    files: ['apps/desktop/renderer/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@brickpost/engine/api', allowTypeImports: true, message: 'the renderer imports the api for its types only' }],
          patterns: [
            { group: NODE_BUILTINS, message: 'the renderer runs in a browser: no Node module' },
            { regex: '^@brickpost/(?!engine/api$)', message: 'the renderer imports nothing of the engine but the api’s types' },
            { group: ['electron', 'better-sqlite3', 'zstd-napi', 'qrcode'], message: 'the renderer runs in a browser: no Node module' },
            { group: ['**/host/**', '**/server/**', '**/main/**', '**/preload/**'], message: 'the renderer talks to the host through the bridge only' },
          ],
        },
      ],
    },
  },
);
