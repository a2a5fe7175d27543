// The house rules a tool can hold (CONTRIBUTING.md "Lint and format"):
// typescript-eslint's type-checked strict rules and doc-comment syntax.
// `npm run lint` runs it; CI runs it before the tests.
import eslint from '@eslint/js';
import tsdoc from 'eslint-plugin-tsdoc';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

export default defineConfig(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'apps/desktop/renderer/web/**', 'packages/native/**', 'bench/**', 'scripts/**', 'apps/*/scripts/**', 'apps/cli/bin/**', 'test/fixtures/**', 'eslint.config.js'],
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
      // `(x) => void f(x)` and `() => sink(event)` as callbacks are the house's
      // shorthand; a void result is still refused where it is used as a value.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidOperator: true }],
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
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      // Tests parse the JSON a command prints (`--json`, reports, NDJSON
      // events) and assert on its fields: the parsed value is `any` by
      // design, and its shape is what the test checks.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The renderer and its browser bridge build with their own tsconfig (DOM, no Node).
    files: ['apps/desktop/src/renderer/**/*.ts', 'apps/desktop/src/bridge/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['apps/desktop/tsconfig.renderer.json'], tsconfigRootDir: import.meta.dirname },
    },
  },

);
