/**
 * Drive sets end to end through the real CLI: one shipment written to 3
 * drives (1 parity) and to 5 drives (2 parity), each drive a signed BagIt
 * bag that bagit.py validates alone. Losing any M drives' folders still
 * ingests byte-identical; losing M + 1 is refused naming the drives needed;
 * verify of one drive reports the set; a drive of another shipment or
 * signed by another key is rejected; one drive at a time works with
 * --gather; a drive too small is refused up front with the shortfall.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { brickpost, diffSnapshots, errorEvent, hasTool, lastEvent, makeDataset, publisherAndSubscriber, sh, snapshot, tempDir } from '../support.js';

/** Every way to pick `r` of `n` items. */
function choose(n: number, r: number): number[][] {
  if (r === 0) return [[]];
  const out: number[][] = [];
  for (let i = 0; i <= n - r; i++) for (const rest of choose(n - i - 1, r - 1)) out.push([i, ...rest.map((x) => x + i + 1)]);
  return out;
}

describe('drive sets with parity', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const other = join(root, 'other-publisher');
  const sub = join(root, 'subscriber');
  let recipient = '';

  /** Packs SRC to N fresh drive folders under DIR; returns the drive roots and the summary. */
  const packSet = (home: string, dir: string, n: number, extra: string[] = []): { drives: string[]; summary: Record<string, any> } => {
    const drives = Array.from({ length: n }, (_, i) => join(dir, `d${i + 1}`));
    for (const d of drives) mkdirSync(d, { recursive: true });
    // Small packs, so every data drive holds several and the last ones differ in length.
    // A dataset of its own per set, so each is a first, self-contained shipment.
    const r = brickpost(home, ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--recipient', recipient, '--dataset', basename(dir), '--json', ...extra], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr);
    return { drives, summary: lastEvent(r).result };
  };

  /** A copy of the given drives only, in a fresh folder (the others are "lost"). */
  const keep = (drives: string[], which: number[], tag: string): string[] => {
    const out: string[] = [];
    for (const i of which) {
      const to = join(root, 'kept', tag, `d${i + 1}`);
      cpSync(drives[i]!, to, { recursive: true });
      out.push(to);
    }
    return out;
  };

  beforeAll(() => {
    makeDataset(src, '6M', 5);
    recipient = publisherAndSubscriber(pub, sub);
    assert.equal(brickpost(other, ['keygen', '--name', 'other']).code, 0);
  });

  for (const [n, m] of [
    [3, 1],
    [5, 2],
  ] as const) {
    test(`${n} drives with ${m} parity: any ${m} lost still ingest, ${m + 1} lost are refused`, () => {
      const { drives, summary } = packSet(pub, join(root, `set${n}`), n, n === 5 ? ['--parity', '2'] : []);
      assert.equal(summary.paths.length, n);
      assert.equal(summary.parity, m);
      assert.ok(summary.packs >= 2 * (n - m), `packs are spread over the data drives (${summary.packs})`);
      const bag = (d: string): string => join(d, 'brickpost', summary.shipmentId);
      for (const [i, d] of drives.entries()) {
        const info = readFileSync(join(bag(d), 'bag-info.txt'), 'utf8');
        assert.match(info, new RegExp(`^Bag-Count: ${i + 1} of ${n}$`, 'm'));
        assert.match(info, new RegExp(`^Bag-Group-Identifier: ${summary.shipmentId}$`, 'm'));
        if (hasTool('bagit.py')) sh('bagit.py', ['--validate', bag(d)]);
        const packs = existsSync(join(bag(d), 'data', 'packs'))
          ? readdirSync(join(bag(d), 'data', 'packs'), { recursive: true }).filter((f) => String(f).endsWith('.age'))
          : [];
        const parity = existsSync(join(bag(d), 'data', 'parity'));
        assert.equal(
          i < n - m ? packs.length > 0 && !parity : packs.length === 0 && parity,
          true,
          `drive ${i + 1} holds ${i < n - m ? 'packs' : 'parity'} only`,
        );
      }

      // Every choice of m lost drives ingests the same tree.
      for (const lost of choose(n, m)) {
        const present = [...Array(n).keys()].filter((i) => !lost.includes(i));
        const dest = join(root, `dest-${n}-${lost.join('')}`);
        const r = brickpost(sub, ['ingest', ...keep(drives, present.reverse(), `${n}-${lost.join('')}`), dest, '--json']);
        assert.equal(r.code, 0, `lost ${lost.join(',')}: ${r.stdout.slice(-1500)} ${r.stderr}`);
        assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], `lost drives ${lost.map((i) => i + 1).join(',')}: byte-identical`);
        assert.equal(
          existsSync(join(dest, '.brickpost', 'rebuild')) && readdirSync(join(dest, '.brickpost', 'rebuild')).length > 0,
          false,
          'rebuilt packs are removed',
        );
      }

      // m + 1 lost: refused with exit 8, naming the drives that could complete the set.
      const present = [...Array(n).keys()].slice(m + 1);
      const dest = join(root, `dest-${n}-short`);
      const r = brickpost(sub, ['ingest', ...keep(drives, present, `${n}-short`), dest, '--json']);
      assert.equal(r.code, 8, r.stdout + r.stderr);
      const ev = errorEvent(r);
      assert.equal(ev.code, 'SET_INCOMPLETE');
      assert.match(ev.message, new RegExp(`1 more of drives ${[...Array(m + 1).keys()].map((i) => i + 1).join(', ')} is needed`));
      assert.equal(existsSync(dest) && readdirSync(dest).some((f) => f !== '.brickpost'), false, 'nothing is ingested');
    });
  }

  test('verify of one drive reports the set; a lost drive makes it say so', () => {
    const { drives, summary } = packSet(pub, join(root, 'verify-set'), 3);
    const one = brickpost(sub, ['verify', drives[1]!, '--json']);
    assert.equal(one.code, 0, one.stdout + one.stderr);
    const rep = lastEvent(one).result;
    assert.equal(rep.set.drive, 2);
    assert.deepEqual(rep.set.present, [1, 2, 3], 'the drives mounted next to it are found');
    assert.equal(rep.set.recoverable, true);
    const deep = brickpost(sub, ['verify', '--deep', drives[0]!, '--json']);
    assert.equal(deep.code, 0, deep.stdout + deep.stderr);
    // Data drive 1 lost: deep verify from drive 2 rebuilds its packs from drives 2 and 3.
    rmSync(drives[0]!, { recursive: true });
    const rebuilt = brickpost(sub, ['verify', '--deep', drives[1]!, '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stdout + rebuilt.stderr);
    assert.equal(lastEvent(rebuilt).result.deep, 'ok');
    assert.deepEqual(lastEvent(rebuilt).result.set.missing, [1]);
    rmSync(drives[2]!, { recursive: true });
    const alone = lastEvent(brickpost(sub, ['verify', drives[1]!, '--json'])).result;
    assert.deepEqual(alone.set.present, [2]);
    assert.equal(alone.set.recoverable, false);
    assert.equal(alone.set.needed, 1);
    const human = brickpost(sub, ['verify', drives[1]!]);
    assert.match(human.stdout + human.stderr, /drive 2 of 3 .*1 more of drives 1, 3 needed/);
    const tooFew = brickpost(sub, ['verify', '--deep', drives[1]!, '--json']);
    assert.equal(tooFew.code, 8, tooFew.stdout + tooFew.stderr);
    assert.equal(summary.paths.length, 3);
  });

  test('a drive of another shipment, or signed by another key, is rejected', () => {
    const a = packSet(pub, join(root, 'mix-a'), 3);
    const b = packSet(pub, join(root, 'mix-b'), 3);
    const dest = join(root, 'dest-mix');
    const mixed = brickpost(sub, ['ingest', a.drives[0]!, b.drives[1]!, dest, '--json']);
    assert.equal(mixed.code, 1, mixed.stdout + mixed.stderr);
    assert.equal(errorEvent(mixed).code, 'SET_MISMATCH');
    assert.match(errorEvent(mixed).message, /holds shipment .* not part of the same set/);
    // The other key's set: its drive is not trusted, so the whole ingest is refused.
    const brickpostOther = JSON.parse(brickpost(other, ['whoami', '--json']).stdout);
    assert.ok(brickpostOther.minisignPublicKey);
    const c = packSet(other, join(root, 'mix-c'), 3);
    const forged = brickpost(sub, ['ingest', a.drives[0]!, c.drives[1]!, dest, '--json']);
    assert.equal(forged.code, 3, forged.stdout + forged.stderr);
    assert.equal(errorEvent(forged).code, 'UNTRUSTED_PUBLISHER');
  });

  test('drives mounted next to the one given are found; one drive at a time with --gather', () => {
    const { drives } = packSet(pub, join(root, 'gather-set'), 3);
    const found = brickpost(sub, ['ingest', drives[2]!, join(root, 'dest-siblings'), '--json']);
    assert.equal(found.code, 0, found.stdout + found.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(join(root, 'dest-siblings'))), []);
    // One slot: each drive alone in a folder of its own, as if mounted one after the other.
    const [third] = keep(drives, [2], 'slot-a');
    const [firstDrive] = keep(drives, [0], 'slot-b');
    const dest = join(root, 'dest-gather');
    const first = brickpost(sub, ['ingest', third!, dest, '--gather', '--json']);
    assert.equal(first.code, 8, first.stdout + first.stderr);
    assert.match(errorEvent(first).message, /drives 3 are here, 1 more of drives 1, 2 is needed/);
    const second = brickpost(sub, ['ingest', firstDrive!, dest, '--gather', '--json']);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    assert.equal(
      existsSync(join(dest, '.brickpost', 'gather')) && readdirSync(join(dest, '.brickpost', 'gather')).length > 0,
      false,
      'the gathered copies are removed',
    );
  });

  test('a drive too small is refused before writing, with the shortfall and the drives needed', () => {
    const drives = [join(root, 'small1'), join(root, 'small2'), join(root, 'small3')];
    for (const d of drives) mkdirSync(d);
    const r = brickpost(pub, ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--drive-size', '5M', '--recipient', recipient, '--json']);
    assert.equal(r.code, 5, r.stdout + r.stderr);
    const ev = errorEvent(r);
    assert.equal(ev.code, 'NO_SPACE');
    assert.match(
      ev.message,
      /can take 5242880 bytes; .*short by [0-9]+\); with drives of 5242880 bytes, ([0-9]+) drives are needed \(([0-9]+) more, with --parity 1\)/,
    );
    for (const d of drives)
      assert.deepEqual(
        readdirSync(join(d, 'brickpost')).filter((f) => !f.endsWith('.part')),
        [],
        'no shipment is left on the drives',
      );
  });
});
