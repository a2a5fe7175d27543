/**
 * Hostile set files and parity files on a drive set, through the real CLI.
 * Set files signed by the publisher's key (what a broken publisher, or a
 * holder of its key, can write; re-signed with the testkit's resealTags)
 * that name a path outside data/, give a pack a wrong size, or come from
 * another shipment; and, unsigned, a set file of another shipment and
 * parity files swapped between the two parity drives of a set. Each is
 * refused with a documented code naming the file, and DEST stays empty.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { partyKeys, resealTags } from '@brickpost/engine/testing';
import { brickpost, lastEvent, makeDataset, publisherAndSubscriber, shipmentDir, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

const SET = 'data/set.tsv';

describe('hostile set files and parity files', () => {
  const root = tempDir('bp-adv-set-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  /** Two shipments of one dataset on 3 drives each (1 parity), and one on 5 drives (2 parity). */
  const a = [1, 2, 3].map((i) => join(root, 'a', `d${i}`));
  const b = [1, 2, 3].map((i) => join(root, 'b', `d${i}`));
  const five = [1, 2, 3, 4, 5].map((i) => join(root, 'five', `d${i}`));
  let n = 0;

  const pack = (drives: string[], label: string, extra: string[] = []): void => {
    for (const d of drives) mkdirSync(d, { recursive: true });
    const r = brickpost(
      pub,
      ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--dataset', 'sets', '--label', label, '--recipient', recipient, '--json', ...extra],
      {
        env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
      },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
  };
  let recipient = '';

  beforeAll(() => {
    makeDataset(src, '6M', 41);
    recipient = publisherAndSubscriber(pub, sub);
    pack(a, 'a');
    pack(b, 'b', ['--full']);
    pack(five, 'five', ['--parity', '2', '--full']);
  });

  /** Copies of drives into a fresh folder of their own (so no other drive is found next to them). */
  const copies = (drives: string[]): string[] => {
    const dir = join(root, `case-${++n}`);
    return drives.map((d, i) => {
      const to = join(dir, `d${i + 1}`);
      cpSync(d, to, { recursive: true });
      return to;
    });
  };

  /** Gives every drive `text` as its set file, signed by the publisher's key (payload manifest, Payload-Oxum and tag manifest updated). */
  const signedSetFile = async (drives: string[], text: string): Promise<void> => {
    const key = partyKeys(pub).signingKey;
    for (const d of drives) {
      const bag = shipmentDir(d);
      const old = readFileSync(join(bag, SET));
      writeFileSync(join(bag, SET), text);
      const digest = createHash('sha256').update(text).digest('hex');
      const pm = join(bag, 'manifest-sha256.txt');
      writeFileSync(pm, readFileSync(pm, 'utf8').replace(/^[0-9a-f]{64}(?= {2}data\/set\.tsv$)/m, digest));
      const info = join(bag, 'bag-info.txt');
      writeFileSync(
        info,
        readFileSync(info, 'utf8').replace(
          /^Payload-Oxum: ([0-9]+)\./m,
          (_, bytes: string) => `Payload-Oxum: ${Number(bytes) - old.length + Buffer.byteLength(text)}.`,
        ),
      );
      await resealTags(bag, key);
    }
  };

  const setText = (drive: string): string => readFileSync(join(shipmentDir(drive), SET), 'utf8');
  const emptyDest = (dest: string): void =>
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], [], 'DEST holds nothing');

  test('a signed set file naming a data file outside data/: refused (MALFORMED, exit 1) by verify and ingest', async () => {
    const drives = copies(a);
    const text = setText(a[0]!).replace(/^(file\t0\t)data\/packs\/000\/000000\.age/m, '$1../../../outside.age');
    assert.notEqual(text, setText(a[0]!));
    await signedSetFile(drives, text);
    assertRefused(run(sub, ['verify', drives[0]!]), { code: 'MALFORMED', exit: 1, names: '../../../outside.age' });
    const dest = join(root, `dest-${n}`);
    assertRefused(run(sub, ['ingest', ...drives, dest]), { code: 'MALFORMED', exit: 1, names: '../../../outside.age' });
    emptyDest(dest);
  });

  test('a signed set file giving a pack a wrong size: the pack is refused by verify; a rebuild from parity fails its SHA-256; DEST stays empty', async () => {
    const drives = copies(a);
    // Two packs of share 0 trade 100 bytes, so every sum in the file still adds up.
    const lines = setText(a[0]!).split('\n');
    const files = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('file\t0\t'));
    assert.ok(files.length >= 2, 'share 0 holds two packs');
    const bump = (i: number, d: number): void => {
      const f = lines[i]!.split('\t');
      f[3] = String(Number(f[3]) + d);
      lines[i] = f.join('\t');
    };
    bump(files[0]![1], 100);
    bump(files[1]![1], -100);
    await signedSetFile(drives, lines.join('\n'));
    const rel = files[1]![0].split('\t')[2]!;
    assertRefused(run(sub, ['verify', drives[0]!]), {
      code: 'FIXITY_MISMATCH',
      exit: 1,
      names: `${JSON.stringify(rel)} is ${Number(files[1]![0].split('\t')[3])} bytes, more than the ${Number(files[1]![0].split('\t')[3]) - 100} bytes the set file gives it`,
    });
    // Drive 1 lost: its packs are rebuilt from drives 2 and 3 at the offsets the lying set file gives.
    const dest = join(root, `dest-${n}`);
    const o = run(sub, ['ingest', drives[1]!, drives[2]!, dest]);
    assertRefused(o, { code: 'FIXITY_MISMATCH', exit: 1, names: /data\/packs\/000\/00000[0-9]\.age/ });
    emptyDest(dest);
  });

  test('a set file of another shipment, signed: refused as naming another shipment (MALFORMED, exit 1)', async () => {
    const drives = copies(a);
    const other = setText(b[0]!);
    const otherId = other.split('\n')[1]!.split('\t')[1]!;
    await signedSetFile(drives, other);
    assertRefused(run(sub, ['verify', drives[0]!]), { code: 'MALFORMED', exit: 1, names: otherId });
    const dest = join(root, `dest-${n}`);
    assertRefused(run(sub, ['ingest', ...drives, dest]), { code: 'MALFORMED', exit: 1, names: otherId });
    emptyDest(dest);
  });

  test('a set file of another shipment copied onto a drive (unsigned): FIXITY_MISMATCH naming the set file (exit 1)', () => {
    const drives = copies(a);
    for (const d of drives) writeFileSync(join(shipmentDir(d), SET), setText(b[0]!));
    assertRefused(run(sub, ['verify', drives[0]!]), { code: 'FIXITY_MISMATCH', exit: 1, names: SET });
    const dest = join(root, `dest-${n}`);
    assertRefused(run(sub, ['ingest', ...drives, dest]), { code: 'FIXITY_MISMATCH', exit: 1, names: SET });
    emptyDest(dest);
  });

  test('parity files swapped between the two parity drives: verify names them; a rebuild that needs both is refused; DEST stays empty', () => {
    const drives = copies(five);
    const p4 = join(shipmentDir(drives[3]!), 'data', 'parity', '000', '000000.rs');
    const p5 = join(shipmentDir(drives[4]!), 'data', 'parity', '000', '000000.rs');
    assert.notDeepEqual(readFileSync(p4), readFileSync(p5), 'the two parity shares differ');
    renameSync(p4, `${p4}.tmp`);
    renameSync(p5, p4);
    renameSync(`${p4}.tmp`, p5);
    for (const d of [drives[3]!, drives[4]!]) {
      assertRefused(run(sub, ['verify', d]), { code: 'FIXITY_MISMATCH', exit: 1, names: 'data/parity/000/000000.rs' });
    }
    // Data drives 1 and 2 lost: their packs need both parity drives.
    const dest = join(root, `dest-${n}`);
    const o = run(sub, ['ingest', drives[2]!, drives[3]!, drives[4]!, dest]);
    assertRefused(o, { code: 'FIXITY_MISMATCH', exit: 1 });
    assert.match(lastEvent(o).message, /parity|data\/packs/);
    emptyDest(dest);
  });
});
