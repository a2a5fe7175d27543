#!/usr/bin/env node
/**
 * Builds the native core (cargo build --release) into brickpost-native.node
 * when cargo is there. It never fails the install: without cargo, or when
 * the build fails, it writes why to build-status.txt and brickpost runs on
 * its JavaScript path (index.js says so once). BRICKPOST_NATIVE=0 skips the
 * build. `--force` builds even when the module is newer than the sources.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newest } from './newest.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'brickpost-native.node');
const status = join(here, 'build-status.txt');
const log = (msg) => process.stderr.write(`brickpost-native: ${msg}\n`);

function skip(why) {
  writeFileSync(status, `${why}\n`);
  log(`${why}; brickpost will use its JavaScript path`);
  process.exit(0);
}

function cargo() {
  for (const c of ['cargo', join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin', 'cargo')]) {
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return null;
}

if (process.env.BRICKPOST_NATIVE === '0') skip('BRICKPOST_NATIVE=0: native core not built');
const sources = Math.max(newest(join(here, 'src')), statSync(join(here, 'Cargo.toml')).mtimeMs, statSync(join(here, 'Cargo.lock')).mtimeMs);
if (!process.argv.includes('--force') && existsSync(out) && statSync(out).mtimeMs >= sources) {
  log('native core is up to date');
  process.exit(0);
}
const bin = cargo();
if (!bin) skip('cargo not found (install Rust, e.g. apt-get install cargo, then run npm run build -w @brickpost/native)');
log(`building the native core with ${bin} (release)…`);
const r = spawnSync(bin, ['build', '--release', '--locked'], {
  cwd: here,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, CARGO_TARGET_DIR: join(here, 'target') },
});
if (r.status !== 0) skip(`cargo build failed (exit ${r.status ?? r.signal})`);
const lib = { darwin: 'libbrickpost_native.dylib', win32: 'brickpost_native.dll' }[process.platform] ?? 'libbrickpost_native.so';
const built = join(here, 'target', 'release', lib);
if (!existsSync(built)) skip(`cargo build left no ${lib}`);
rmSync(out, { force: true });
copyFileSync(built, out);
rmSync(status, { force: true });
log('native core built');
