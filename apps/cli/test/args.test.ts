import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../src/args.js';
import type { ParsedLine } from '../src/args.js';
import { isBrickpostError } from '@brickpost/engine/api';

function runOf(argv: string[]): Extract<ParsedLine, { kind: 'run' }> {
  const p = parseCommandLine(argv);
  assert.equal(p.kind, 'run');
  return p;
}

function usage(argv: string[], pattern: RegExp, hintCommand?: string): void {
  assert.throws(
    () => parseCommandLine(argv),
    (e: unknown) => {
      assert.ok(isBrickpostError(e, 'USAGE'), `expected USAGE, got ${String(e)}`);
      assert.match(e.message, pattern);
      assert.equal(e.exitCode, 2);
      assert.equal(e.hint, hintCommand === undefined ? "see 'brickpost --help'" : `see 'brickpost ${hintCommand} --help'`);
      return true;
    },
  );
}

test('pack: positionals, repeatable options, flags', () => {
  const p = runOf(['pack', 'src', '--to', 'd1', '--to=d2', '-r', 'age1abc', '--recipient', 'r.txt', '--no-self', '--level', '7', '--label=-x']);
  assert.equal(p.command.name, 'pack');
  assert.deepEqual(p.invocation.positionals, ['src']);
  assert.deepEqual(p.invocation.values.to, ['d1', 'd2']);
  assert.deepEqual(p.invocation.values.recipient, ['age1abc', 'r.txt']);
  assert.equal(p.invocation.values['no-self'], true);
  assert.equal(p.invocation.values.level, '7');
  assert.equal(p.invocation.values.label, '-x');
  assert.equal(p.invocation.values.dataset, undefined);
});

test('global options anywhere, before or after the command', () => {
  const saved = process.env.BRICKPOST_HOME;
  delete process.env.BRICKPOST_HOME;
  try {
    for (const argv of [
      ['--home', '/h', '--json', 'verify', 'd', '--deep'],
      ['verify', '--json', 'd', '--home=/h', '--deep'],
      ['-q', 'verify', 'd', '--deep', '--json', '--home', '/h'],
    ]) {
      const p = runOf(argv);
      assert.equal(p.command.name, 'verify');
      assert.deepEqual(p.invocation.positionals, ['d']);
      assert.equal(p.invocation.values.deep, true);
      assert.equal(p.globals.home, '/h');
      assert.equal(p.globals.json, true);
    }
    assert.equal(runOf(['-q', 'whoami']).globals.quiet, true);
    assert.equal(runOf(['whoami']).globals.home, undefined);
  } finally {
    if (saved !== undefined) process.env.BRICKPOST_HOME = saved;
  }
});

test('BRICKPOST_HOME is the default home; --home wins', () => {
  const saved = process.env.BRICKPOST_HOME;
  process.env.BRICKPOST_HOME = '/from-env';
  try {
    assert.equal(runOf(['whoami']).globals.home, '/from-env');
    assert.equal(runOf(['whoami', '--home', '/flag']).globals.home, '/flag');
  } finally {
    if (saved === undefined) delete process.env.BRICKPOST_HOME;
    else process.env.BRICKPOST_HOME = saved;
  }
});

test('trust subcommands, with globals between the words', () => {
  const p = runOf(['trust', '--json', 'add', 'RWabc', '--name', 'alice']);
  assert.equal(p.command.name, 'trust add');
  assert.deepEqual(p.invocation.positionals, ['RWabc']);
  assert.equal(p.invocation.values.name, 'alice');
  assert.equal(runOf(['trust', 'list']).command.name, 'trust list');
  assert.deepEqual(runOf(['trust', 'remove', 'alice']).invocation.positionals, ['alice']);
});

test('-- ends options', () => {
  const p = runOf(['ls', '--', '--weird-drive']);
  assert.deepEqual(p.invocation.positionals, ['--weird-drive']);
});

test('help forms', () => {
  const topic = (argv: string[]): unknown => {
    const p = parseCommandLine(argv);
    assert.equal(p.kind, 'help');
    const t = p.topic;
    return typeof t === 'object' ? t.name : t;
  };
  assert.equal(topic(['--help']), undefined);
  assert.equal(topic(['-h']), undefined);
  assert.equal(topic(['help']), undefined);
  assert.equal(topic(['help', 'pack']), 'pack');
  assert.equal(topic(['pack', '--help']), 'pack');
  assert.equal(topic(['help', 'trust']), 'trust');
  assert.equal(topic(['trust', '--help']), 'trust');
  assert.equal(topic(['help', 'trust', 'add']), 'trust add');
  assert.equal(topic(['trust', 'add', '--help']), 'trust add');
  assert.equal(parseCommandLine(['--version']).kind, 'version');
});

test('usage errors name the problem and point at the right help', () => {
  usage([], /no command given/);
  usage(['frob'], /unknown command "frob"/);
  usage(['help', 'frob'], /unknown command "frob"/);
  usage(['pack'], /missing <SOURCE-DIR>/, 'pack');
  usage(['pack', 'src'], /missing --to <DRIVE-DIR>/, 'pack');
  usage(['pack', 'src', '--to'], /option --to needs a value/, 'pack');
  usage(['pack', 'src', '--to', '--json'], /option --to needs a value/, 'pack');
  usage(['pack', 'src', '--to', 'd', '--bogus'], /unknown option "--bogus" for pack/, 'pack');
  usage(['ingest', 'drive'], /missing <DEST-DIR>/, 'ingest');
  usage(['verify', 'a', 'b'], /unexpected argument "b"/, 'verify');
  usage(['keygen', '--force=yes'], /option --force takes no value/, 'keygen');
  usage(['ls', 'd', '--shipment', 'a', '--shipment', 'b'], /given more than once/, 'ls');
  usage(['trust'], /trust needs a subcommand: add, list, remove/, 'trust');
  usage(['trust', 'frob'], /unknown subcommand "frob"/, 'trust');
  usage(['trust', 'add'], /missing <KEY-or-FILE>/, 'trust add');
  usage(['--deep', 'verify', 'd'], /"--deep" must come after the command/);
  usage(['whoami', '-x'], /unknown option "-x" for whoami/, 'whoami');
});
