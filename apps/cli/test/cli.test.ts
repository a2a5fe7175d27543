import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../src/commands/index.js';
import { EXIT_TABLE } from '../src/exit-codes.js';
import { brickpost, show } from './transcript.js';

test('every command module has its entry in the command table, and every entry a module', () => {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/src/commands');
  const modules = readdirSync(dir)
    .filter((f) => f.endsWith('.js') && f !== 'index.js')
    .map((f) => `./${f}`)
    .sort();
  // The table (src/table/) loads each module from commands/.
  const loaded = [...new Set(COMMANDS.map((c) => /import\('\.\.\/commands\/([^']+)'\)/.exec(c.load.toString())?.[1]))].map((f) => `./${f}`).sort();
  assert.deepEqual(loaded, modules);
});

test('brickpost --help lists every command, the global options and the exit-code table', () => {
  const t = brickpost(['--help']);
  assert.equal(t.code, 0, show(t));
  assert.equal(t.stderr, '');
  for (const c of COMMANDS) assert.match(t.stdout, new RegExp(`^  ${c.name} +\\S`, 'm'), c.name);
  for (const g of ['--home <DIR>', '--quiet', '--json', '--help', '--version']) assert.ok(t.stdout.includes(g), g);
  for (const r of EXIT_TABLE) assert.match(t.stdout, new RegExp(`^ +${r.code}  ${r.name} +\\S`, 'm'), r.name);
  assert.deepEqual(brickpost(['help']).stdout, t.stdout);
  assert.deepEqual(brickpost(['-h']).stdout, t.stdout);
});

test('command help: brickpost <cmd> --help and brickpost help <cmd>', () => {
  for (const c of COMMANDS) {
    const a = brickpost([...c.name.split(' '), '--help']);
    assert.equal(a.code, 0, show(a));
    assert.ok(a.stdout.startsWith(`Usage: brickpost ${c.name}`), show(a));
    for (const o of c.options) assert.ok(a.stdout.includes(`--${o.name}`), `${c.name} --${o.name}`);
    const b = brickpost(['help', ...c.name.split(' ')]);
    assert.equal(b.stdout, a.stdout);
  }
  const g = brickpost(['trust', '--help']);
  assert.equal(g.code, 0, show(g));
  assert.match(g.stdout, /trust add <KEY-or-FILE>/);
});

test('--version', () => {
  const t = brickpost(['--version']);
  assert.equal(t.code, 0);
  assert.match(t.stdout, /^brickpost \d+\.\d+\.\d+\n$/);
});

const usageCases: [string[], RegExp, string][] = [
  [[], /no command given/, 'brickpost'],
  [['frobnicate'], /unknown command "frobnicate"/, 'brickpost'],
  [['pack', 'src'], /missing --to <DRIVE-DIR>/, 'brickpost pack'],
  [['pack', 'src', '--to', 'd', '--bogus'], /unknown option "--bogus" for pack/, 'brickpost pack'],
  [['verify'], /missing <DRIVE-DIR>/, 'brickpost verify'],
  [['ingest', 'drive'], /missing <DEST-DIR>/, 'brickpost ingest'],
  [['ls', 'd', '--shipment'], /option --shipment needs a value/, 'brickpost ls'],
  [['trust'], /needs a subcommand/, 'brickpost trust'],
  [['trust', 'add'], /missing <KEY-or-FILE>/, 'brickpost trust add'],
  [['whoami', 'extra'], /unexpected argument "extra"/, 'brickpost whoami'],
];

for (const [args, message, help] of usageCases) {
  test(`usage error: brickpost ${args.join(' ')}`, () => {
    const t = brickpost(args);
    assert.equal(t.code, 2, show(t));
    assert.equal(t.stdout, '');
    const lines = t.stderr.trimEnd().split('\n');
    assert.match(lines[0]!, /^brickpost: error: /);
    assert.match(lines[0]!, message);
    assert.equal(lines[1], `brickpost: hint: see '${help} --help'`);
    assert.equal(lines.length, 2, show(t));
  });
}

test('usage error with --json: one error event on stdout', () => {
  const t = brickpost(['pack', 'src', '--json']);
  assert.equal(t.code, 2, show(t));
  const lines = t.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1, show(t));
  const ev = JSON.parse(lines[0]!);
  assert.deepEqual(ev, { type: 'error', code: 'USAGE', exitCode: 2, message: 'missing --to <DRIVE-DIR>', hint: "see 'brickpost pack --help'" });
});

/** Static imports of a compiled module (dynamic `import()` excluded). */
function staticImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const from = [...src.matchAll(/^(?:import|export)\s[^;'"]*?\sfrom\s*['"]([^'"]+)['"]/gm)];
  const bare = [...src.matchAll(/^import\s*['"]([^'"]+)['"]/gm)];
  return [...from, ...bare].map((m) => m[1]!);
}

test('the entry point does not load the engine or native modules (commands load lazily)', () => {
  const root = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));
  const seen = new Set<string>();
  const bare = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  walk(root);
  assert.ok(seen.size > 5, "the import scan found the entry point's modules");
  assert.ok(![...seen].some((f) => f.endsWith('/session.js') || (f.includes('/commands/') && !f.endsWith('/commands/index.js'))), [...seen].join('\n'));
  for (const b of bare) assert.ok(b.startsWith('node:') || b === '@brickpost/engine/api', `entry point imports ${b}`);
});
