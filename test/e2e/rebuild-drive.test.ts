/**
 * `brickpost rebuild-drive` end to end through the real CLI, on drive
 * folders: a courier who trusts the publisher's key, and holds no key the
 * shipment is encrypted to, rebuilds a lost data drive and a lost parity
 * drive of a 5-drive set (2 parity) onto new folders. Each rebuilt bag is
 * byte for byte the lost one; the subscriber verifies it (keyless and
 * deep) and ingests with it standing in for the lost drive; its custody
 * log says who rebuilt it from which drives. Refused: too few drives, a
 * damaged source drive (named), parity that yields wrong bytes, drives of
 * two sets, a set without parity, a target that is not empty or already a member, a set whose
 * drives carry no copies of the lost drive's tag files. A rebuild killed
 * part way leaves no complete-looking drive and the next run finishes it.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brickpost, CLI, COMMAND_TIMEOUT, diffSnapshots, errorEvent, lastEvent, makeDataset, publisherAndSubscriber, snapshot, tempDir } from '../support.js';

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>)
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Asserts two bag folders hold the same files with the same bytes. */
function sameBag(a: string, b: string): void {
  assert.deepEqual(files(b), files(a));
  for (const f of files(a)) assert.ok(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), `${f} differs`);
}

describe('rebuild-drive', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const courier = join(root, 'courier');
  let id = '';
  let other = '';
  let recipient = '';
  const set: string[] = [];
  const small: string[] = [];

  /** Copies of drives `which` (1-based) of `from` into a fresh folder `tag`, with an empty folder `new` beside them. */
  const lay = (from: string[], which: number[], tag: string): { drives: string[]; fresh: string } => {
    const drives = which.map((n) => {
      const to = join(root, tag, `d${n}`);
      cpSync(from[n - 1]!, to, { recursive: true });
      return to;
    });
    const fresh = join(root, tag, 'new');
    mkdirSync(fresh);
    return { drives, fresh };
  };
  const rebuild = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    brickpost(courier, ['rebuild-drive', ...args, '--json'], { env: { ...process.env, ...env } });
  const bag = (drive: string, shipment = id): string => join(drive, 'brickpost', shipment);

  beforeAll(() => {
    makeDataset(src, '6M', 7);
    recipient = publisherAndSubscriber(pub, sub);
    assert.equal(brickpost(courier, ['keygen', '--name', 'courier']).code, 0);
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(courier, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
    const pack = (n: number, out: string[], dataset: string, extra: string[]): string => {
      for (let i = 1; i <= n; i++) {
        out.push(join(root, dataset, `d${i}`));
        mkdirSync(out[i - 1]!, { recursive: true });
      }
      // Small packs: each data drive holds several, and the share streams differ in length.
      const r = brickpost(
        pub,
        ['pack', src, ...out.flatMap((d) => ['--to', d]), '--recipient', recipient, '--no-self', '--dataset', dataset, '--json', ...extra],
        {
          env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
        },
      );
      assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr);
      return lastEvent(r).result.shipmentId;
    };
    id = pack(5, set, 'five', ['--parity', '2']);
    other = pack(3, small, 'three', []);
  });

  for (const [lost, kind, from] of [
    [2, 'data', [1, 3, 5]],
    [5, 'parity', [2, 3, 4]],
  ] as const) {
    test(`a lost ${kind} drive (${lost} of 5) is rebuilt byte for byte, verifies and ingests in its place`, () => {
      const { drives, fresh } = lay(set, [...from], `lost${lost}`);
      const r = rebuild([...drives, '--to', fresh, '--member', String(lost)]);
      assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr);
      const s = lastEvent(r).result;
      assert.equal(s.drive, lost);
      assert.equal(s.kind, kind);
      assert.deepEqual(
        s.from.map((f: { drive: number }) => f.drive),
        [...from],
      );
      assert.equal(s.custody, 'drive');
      sameBag(bag(set[lost - 1]!), bag(fresh));
      assert.ok(!existsSync(bag(fresh) + '.part'));

      // Its custody log: the publisher's events of that drive, then who rebuilt it from which drives.
      const log = readFileSync(join(fresh, 'brickpost', `${id}.custody`), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        log.map((e) => e.type),
        ['packed', 'sealed', 'rebuilt'],
      );
      assert.equal(log[2].actor.name, 'courier');
      assert.equal(log[2].drive, `${lost} of 5`);
      assert.equal(log[2].details.from, `drives ${from.join(', ')} of 5`);
      // Checked by the courier: the subscriber's record of drive 5 (the copy ingested in the first test) differs, as it should.
      assert.equal(brickpost(courier, ['custody', fresh]).code, 0);

      // The subscriber: the new drive verifies alone, deeply, and stands in for the lost one.
      assert.equal(brickpost(sub, ['verify', fresh]).code, 0);
      const deep = brickpost(sub, ['verify', fresh, '--deep', '--json']);
      assert.equal(deep.code, 0, deep.stdout.slice(-1500));
      assert.equal(lastEvent(deep).result.ok, true);
      // Three drives are needed: the rebuilt one and two others (a data drive lost, the rebuilt one must be read).
      const use = kind === 'data' ? [fresh, drives[0]!, drives[2]!] : [fresh, drives[0]!, drives[1]!];
      for (const d of drives) if (!use.includes(d)) rmSync(d, { recursive: true });
      const dest = join(root, `lost${lost}`, 'dest');
      const ing = brickpost(sub, ['ingest', ...use, dest, '--json']);
      assert.equal(ing.code, 0, ing.stdout.slice(-2000) + ing.stderr);
      assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    });
  }

  test('too few drives: refused, naming the drives that could complete the set', () => {
    const { drives, fresh } = lay(set, [1, 3], 'few');
    const r = rebuild([...drives, '--to', fresh, '--member', '2']);
    assert.equal(r.code, 8, r.stdout + r.stderr);
    const e = errorEvent(r);
    assert.equal(e.code, 'SET_INCOMPLETE');
    assert.match(e.message, /rebuilding drive 2 needs 3 of the others; drives 1, 3 are here, 1 more of drives 4, 5 is needed/);
    assert.deepEqual(readdirSync(fresh), []);
  });

  test('several drives missing and no --member: asks which one', () => {
    const { drives, fresh } = lay(set, [1, 3, 4], 'which');
    const r = rebuild([...drives, '--to', fresh]);
    assert.equal(r.code, 2);
    assert.match(errorEvent(r).message, /drives 2, 5 of the set are not among the drives given/);
    const self = rebuild([...drives, '--to', fresh, '--member', '3']);
    assert.equal(self.code, 2);
    assert.match(errorEvent(self).message, /drive 3 of the set is among the drives given/);
  });

  test('a damaged source drive: refused, naming its file, and nothing looks complete', () => {
    const { drives, fresh } = lay(set, [1, 3, 4], 'damaged');
    const pack = files(join(bag(drives[0]!), 'data', 'packs'))[0]!;
    const file = join(bag(drives[0]!), 'data', 'packs', pack);
    const b = readFileSync(file);
    b[Math.floor(b.length / 2)]! ^= 0x55;
    writeFileSync(file, b);
    const r = rebuild([...drives, '--to', fresh, '--member', '2']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const e = errorEvent(r);
    assert.equal(e.code, 'FIXITY_MISMATCH');
    assert.match(e.message, new RegExp(`"data/packs/${pack}" on drive 1 does not match its SHA-256`));
    assert.ok(!existsSync(bag(fresh)), 'no complete-looking shipment on the new drive');
    assert.notEqual(brickpost(courier, ['verify', fresh]).code, 0);
  });

  test('parity that yields wrong bytes: the rebuilt drive is refused, the parity file named', () => {
    const { drives, fresh } = lay(set, [1, 3, 5], 'bad-parity');
    const file = join(bag(drives[2]!), 'data', 'parity', '000', '000000.rs');
    const b = readFileSync(file);
    b[7]! ^= 0xff;
    writeFileSync(file, b);
    const r = rebuild([...drives, '--to', fresh, '--member', '2']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(errorEvent(r).message, /"data\/parity\/000\/000000\.rs" on drive 5 does not match its SHA-256/);
    assert.ok(!existsSync(bag(fresh)));
  });

  test("copies of the lost drive that are not the publisher's: refused as not authentic", () => {
    const { drives, fresh } = lay(set, [1, 3, 4], 'forged');
    for (const d of drives) {
      const info = join(bag(d), 'peers', '002', 'bag-info.txt');
      writeFileSync(info, readFileSync(info, 'utf8').replace('Brickpost-Label: ', 'Brickpost-Label: forged'));
    }
    const r = rebuild([...drives, '--to', fresh, '--member', '2']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(errorEvent(r).code, 'FIXITY_MISMATCH');
    assert.ok(!existsSync(bag(fresh)));
    for (const d of drives) rmSync(join(bag(d), 'peers'), { recursive: true });
    const none = rebuild([...drives, '--to', fresh, '--member', '2']);
    assert.equal(none.code, 1);
    assert.equal(errorEvent(none).code, 'FILE_MISSING');
    assert.match(errorEvent(none).message, /no drive given carries a copy of drive 2's signed tag files/);
  });

  test('drives of two sets are refused', () => {
    const { drives, fresh } = lay(set, [1, 3, 4], 'mixed');
    const r = rebuild([drives[0]!, drives[1]!, small[0]!, '--to', fresh, '--member', '2']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(errorEvent(r).code, 'SET_MISMATCH');
    assert.match(errorEvent(r).message, new RegExp(`holds shipment "${other}", not "${id}"`));
  });

  test('a set without parity cannot rebuild a drive', () => {
    const pair = [join(root, 'pair', 'd1'), join(root, 'pair', 'd2')];
    for (const d of pair) mkdirSync(d, { recursive: true });
    assert.equal(brickpost(pub, ['pack', src, '--to', pair[0]!, '--to', pair[1]!, '--no-self', '--recipient', recipient, '--dataset', 'pair']).code, 0);
    const fresh = join(root, 'pair', 'new');
    mkdirSync(fresh);
    const r = rebuild([pair[0]!, '--to', fresh]);
    assert.equal(r.code, 8);
    assert.match(errorEvent(r).message, /a set of 2 drives without parity: a lost drive cannot be computed from the others/);
  });

  test('a target that is not empty, or already a drive of the set, is refused', () => {
    const { drives, fresh } = lay(set, [1, 3, 4, 5], 'target');
    writeFileSync(join(fresh, 'notes.txt'), 'keep me\n');
    const r = rebuild([...drives, '--to', fresh]);
    assert.equal(r.code, 2);
    assert.match(errorEvent(r).message, /is not empty: it holds "notes.txt"/);
    assert.equal(readFileSync(join(fresh, 'notes.txt'), 'utf8'), 'keep me\n');
    const member = rebuild([drives[0]!, drives[1]!, drives[2]!, '--to', drives[3]!, '--member', '2']);
    assert.equal(member.code, 2);
    assert.match(errorEvent(member).message, new RegExp(`already holds shipment "${id}": it is a drive of the set`));
  });

  for (const point of ['rebuild-file@2', 'rebuild-publish']) {
    test(`killed at ${point}: no complete-looking drive, and the next run finishes it`, () => {
      const tag = `kill-${point.replace('@', '-')}`;
      const { drives, fresh } = lay(set, [2, 3, 4], tag);
      const k = spawnSync(process.execPath, [CLI, '--home', courier, 'rebuild-drive', ...drives, '--to', fresh, '--member', '1', '--json'], {
        encoding: 'utf8',
        timeout: COMMAND_TIMEOUT,
        env: { ...process.env, BRICKPOST_FAILPOINT: point },
      });
      assert.equal(k.signal, 'SIGKILL', `the failpoint was reached: ${k.stdout.slice(-500)} ${k.stderr}`);
      assert.ok(!existsSync(bag(fresh)));
      assert.ok(existsSync(bag(fresh) + '.part'));
      assert.notEqual(brickpost(sub, ['verify', fresh]).code, 0);
      const r = rebuild([...drives, '--to', fresh, '--member', '1']);
      assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr);
      const s = lastEvent(r).result;
      assert.ok(s.kept >= 1, `the second run kept what the first finished (${s.kept})`);
      if (point === 'rebuild-publish') assert.equal(s.kept, s.files, 'every file was finished before the kill');
      sameBag(bag(set[0]!), bag(fresh));
      assert.equal(brickpost(sub, ['verify', fresh]).code, 0);
    });
  }
});
