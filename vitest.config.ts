// The test suite: one Vitest project per package and one per folder of
// test/. Tests run from their TypeScript sources; the product they test is
// the compiled one (`tsc -b` first: tests spawn the CLI and the desktop host,
// and the engine starts workers from dist), so an import of a package's
// `src/` from a test loads its build in `dist/src/`, the same module the
// package's name gives. Files run in forked processes (native addons,
// process-wide state), two at a time.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

const ROOT = dirname(fileURLToPath(import.meta.url));
/** The sub-folders of `dir` (relative to the root), so that no suite added later is left out by accident. */
const folders = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !['dist', 'fixtures', 'node_modules'].includes(d.name))
    .map((d) => d.name)
    .sort();
/** Every workspace package with a test folder. */
const PACKAGES = ['packages', 'apps'].flatMap((top) => folders(top).map((p) => `${top}/${p}`)).filter((p) => existsSync(join(ROOT, p, 'test')));
/** Every folder of test/: e2e, adversarial, fault, kill-anywhere, interop, desktop, ui, s3… */
const FOLDERS = folders('test');
/** A guard against hangs only: the longest test takes minutes on an idle machine, several times that on a loaded one. */
const GUARD_MS = 30 * 60_000;

/** `../src/x.js` from a test: the package's compiled `dist/src/x.js`. */
function builtProduct(): Plugin {
  const source = /^(.*\/(?:packages|apps)\/[^/]+)\/src\/(.*?)(?:\.ts|\.js)?$/;
  return {
    name: 'brickpost:built-product',
    enforce: 'pre',
    resolveId(id, importer) {
      if (!importer || !id.startsWith('.') || source.test(importer) || importer.includes('/dist/')) return null;
      const m = source.exec(resolve(dirname(importer), id));
      return m ? join(m[1]!, 'dist', 'src', `${m[2]}.js`) : null;
    },
  };
}

export default defineConfig({
  plugins: [builtProduct()],
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: GUARD_MS,
    hookTimeout: GUARD_MS,
    teardownTimeout: 60_000,
    reporters: ['default', join(ROOT, 'scripts', 'test-summary.mjs')],
    // Removes the temp folders each file made (test/support.ts tempDir).
    setupFiles: [join(ROOT, 'test', 'setup.ts')],
    // The build is loaded by Node itself, as the CLI loads it.
    server: { deps: { external: [/\/dist\//] } },
    projects: [
      ...PACKAGES.map((p) => ({ extends: true as const, test: { name: p, include: [`${p}/test/**/*.test.ts`] } })),
      ...FOLDERS.map((f) => ({ extends: true as const, test: { name: `test/${f}`, include: [`test/${f}/**/*.test.ts`] } })),
    ],
  },
});
