/**
 * The Electron main process must not load a native module: better-sqlite3
 * and zstd-napi are built for Node's ABI and would fail in Electron (the
 * engine runs in a Node child process instead). Every module the compiled
 * main process imports, except 'electron' itself, is loaded here with
 * process.dlopen watched.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../support.js';

test("the Electron main process's imports load no native module", async () => {
  const loaded: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- process.dlopen uses no `this`
  const original = process.dlopen;
  process.dlopen = (module: unknown, filename: string, ...rest: unknown[]) => {
    loaded.push(filename);
    return (original as (...a: unknown[]) => unknown)(module, filename, ...rest);
  };
  try {
    const mainDir = join(ROOT, 'apps', 'desktop', 'dist', 'src', 'main');
    const specifiers = new Set<string>();
    for (const file of ['main.js', 'ipc.js']) {
      const code = readFileSync(join(mainDir, file), 'utf8');
      for (const m of code.matchAll(/^import\s[^;]*?from\s+'([^']+)';/gm)) specifiers.add(m[1]!);
      assert.doesNotMatch(code, /@brickpost\/engine'|from '@brickpost\/engine\/testing'/, `${file} imports the engine itself`);
    }
    assert.ok(specifiers.has('electron'));
    assert.ok(specifiers.has('../host/remote.js'));
    for (const s of specifiers) {
      // './ipc.js' is scanned above; it imports 'electron', which only Electron provides.
      if (s === 'electron' || s.startsWith('node:') || s.startsWith('./')) continue;
      await import(s.startsWith('.') ? pathToFileURL(resolve(mainDir, s)).href : s);
    }
    await import(pathToFileURL(join(dirname(mainDir), 'host', 'remote.js')).href);
  } finally {
    process.dlopen = original;
  }
  assert.deepEqual(loaded, []);
});
