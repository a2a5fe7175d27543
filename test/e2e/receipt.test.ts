/**
 * Receipts end to end through the real CLI: a first shipment (keygen on both
 * sides, trust both ways, pack, ingest), then `receipt` on the subscriber and
 * `receipt import` on the publisher, which records it in its catalog. A
 * modified, unsigned or untrusted receipt is refused (exit 3); a file changed
 * in the destination makes the receipt say ok: false and name it. Also
 * `signature` of a destination names its dataset and shipment.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, lastEvent, makeDataset, tempDir, type Run } from '../support.js';

describe('receipts', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let subId: Record<string, string> = {};
  let pubId: Record<string, string> = {};
  let packed: Record<string, any> = {};

  const receipt = (out: string, ...extra: string[]): { run: Run; result: Record<string, any> } => {
    const run = brickpost(sub, ['receipt', dest, '--out', join(root, out), '--json', ...extra]);
    const summary = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'summary');
    return { run, result: summary?.result };
  };
  const receiptRows = (): Array<Record<string, unknown>> => {
    const db = new Database(join(pub, 'catalog.sqlite'), { readonly: true });
    try {
      return db
        .prepare(
          'SELECT dataset_id, recipient, subscriber_key, subscriber_name, shipment_id, seq, verified, state_digest, file_sha256 FROM receipts ORDER BY id',
        )
        .all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };

  beforeAll(() => {
    makeDataset(src, '4M', 11);
    writeFileSync(join(src, 'notes.txt'), 'field notes, first version\n');
    mkdirSync(drive);
    for (const [h, name] of [
      [pub, 'survey-lab'],
      [sub, 'field-station'],
    ] as const)
      assert.equal(brickpost(h, ['keygen', '--name', name]).code, 0);
    subId = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout);
    pubId = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout);
    assert.equal(brickpost(sub, ['trust', 'add', pubId.minisignPublicKey!, '--name', 'survey-lab']).code, 0);
    assert.equal(brickpost(pub, ['trust', 'add', subId.minisignPublicKey!, '--name', 'field-station']).code, 0);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', subId.recipient!, '--dataset', 'survey', '--json']);
    assert.equal(p.code, 0, p.stderr);
    packed = lastEvent(p).result;
    const i = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(i.code, 0, i.stderr);
  });

  test('receipt of an intact destination says ok, and minisign accepts its signature', () => {
    const { run, result } = receipt('r1.json');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const r = result.receipt;
    assert.equal(r.format, 'brickpost-receipt/v1');
    assert.deepEqual(r.current, { shipment: packed.shipmentId, seq: 1 });
    assert.deepEqual(r.subscriber, { name: 'field-station', keyId: subId.keyId, recipient: subId.recipient });
    assert.equal(r.publisher, pubId.keyId);
    assert.deepEqual(
      { level: r.verification.level, ok: r.verification.ok, files: r.verification.files, problems: r.verification.problems },
      { level: 'stat', ok: true, files: packed.files, problems: [] },
    );
    assert.equal(r.verification.bytes, packed.bytesIn);
    assert.deepEqual(JSON.parse(readFileSync(join(root, 'r1.json'), 'utf8')), r, 'the file is the receipt in the summary');
    const v = spawnSync('minisign', ['-Vm', join(root, 'r1.json'), '-p', subId.minisignPublicKeyFile!], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, new RegExp(`brickpost/v1 receipt dataset:${packed.datasetId} shipment:${packed.shipmentId} seq:1 subscriber:${subId.keyId}`));
    const deep = receipt('r1-deep.json', '--deep');
    assert.equal(deep.run.code, 0, deep.run.stdout + deep.run.stderr);
    assert.equal(deep.result.receipt.verification.level, 'deep');
    assert.equal(deep.result.receipt.verification.ok, true);
  });

  test('receipt import on the publisher records it, once', () => {
    const r = brickpost(pub, ['receipt', 'import', join(root, 'r1.json')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /subscriber field-station holds dataset survey at seq 1, verified ok/);
    const rows = receiptRows();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { ...rows[0], state_digest: undefined, file_sha256: undefined },
      {
        dataset_id: packed.datasetId,
        recipient: subId.recipient,
        subscriber_key: subId.keyId,
        subscriber_name: 'field-station',
        shipment_id: packed.shipmentId,
        seq: 1,
        verified: 'stat',
        state_digest: undefined,
        file_sha256: undefined,
      },
    );
    const again = brickpost(pub, ['receipt', 'import', join(root, 'r1.json'), '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).alreadyImported, true);
    assert.equal(receiptRows().length, 1, 'importing the same receipt again adds nothing');
  });

  test('a modified, unsigned or untrusted receipt is refused with exit 3', () => {
    const text = readFileSync(join(root, 'r1.json'), 'utf8');
    const forged = join(root, 'forged.json');
    writeFileSync(forged, text.replace('"level": "stat"', '"level": "deep"'));
    copyFileSync(join(root, 'r1.json.minisig'), `${forged}.minisig`);
    const f = brickpost(pub, ['receipt', 'import', forged, '--json']);
    assert.equal(f.code, 3, f.stdout + f.stderr);
    assert.equal(lastEvent(f).code, 'SIGNATURE_INVALID');

    const bare = join(root, 'bare.json');
    writeFileSync(bare, text);
    const u = brickpost(pub, ['receipt', 'import', bare, '--json']);
    assert.equal(u.code, 3);
    assert.equal(lastEvent(u).code, 'UNSIGNED');

    const stranger = join(root, 'stranger');
    assert.equal(brickpost(stranger, ['keygen']).code, 0);
    const t = brickpost(stranger, ['receipt', 'import', join(root, 'r1.json'), '--json']);
    assert.equal(t.code, 3);
    assert.equal(lastEvent(t).code, 'UNTRUSTED_PUBLISHER');
    assert.match(t.stderr, /brickpost trust add/);
    assert.equal(receiptRows().length, 1);
  });

  test('a receipt for a dataset this home does not publish is refused', () => {
    const other = join(root, 'other-publisher');
    assert.equal(brickpost(other, ['keygen']).code, 0);
    assert.equal(brickpost(other, ['trust', 'add', subId.minisignPublicKey!]).code, 0);
    const r = brickpost(other, ['receipt', 'import', join(root, 'r1.json'), '--json']);
    assert.equal(r.code, 6, r.stdout);
    assert.equal(lastEvent(r).code, 'DATASET_MISMATCH');
  });

  test('a file changed in the destination: the receipt says ok: false and names it', () => {
    const notes = join(dest, 'notes.txt');
    const st = statSync(notes, { bigint: true });
    // Same size and mtime (to the microsecond, as ingest sets it): only --deep can see it.
    writeFileSync(notes, 'field notes, EDITED version\n'.slice(0, Number(st.size)));
    assert.equal(statSync(notes).size, Number(st.size));
    const t = Number(st.mtimeNs / 1_000_000_000n) + Number(st.mtimeNs % 1_000_000_000n) / 1e9;
    utimesSync(notes, t, t);
    const shallow = receipt('r2.json');
    assert.equal(shallow.run.code, 0, 'size and mtime unchanged: a stat check passes');
    const deep = receipt('r2-deep.json', '--deep');
    assert.equal(deep.run.code, 1, deep.run.stdout + deep.run.stderr);
    const v = deep.result.receipt.verification;
    assert.equal(v.ok, false);
    assert.deepEqual(
      v.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
      [['CHUNK_MISMATCH', 'notes.txt']],
    );
    assert.equal(lastEvent(deep.run).type, 'error');

    writeFileSync(join(dest, 'notes.txt'), 'field notes, rewritten and longer\n');
    const victim = firstDatasetFile();
    unlinkSync(join(dest, victim));
    const stat = receipt('r3.json');
    assert.equal(stat.run.code, 1);
    const problems = stat.result.receipt.verification.problems.map((p: { code: string; path: string }) => [p.code, p.path]).sort();
    assert.deepEqual(
      problems,
      [
        ['FILE_MISSING', victim],
        ['FIXITY_MISMATCH', 'notes.txt'],
      ].sort(),
    );
    const human = brickpost(sub, ['receipt', dest, '--out', join(root, 'r4.json')]);
    assert.equal(human.code, 1);
    assert.match(human.stdout, /FIXITY_MISMATCH .*notes\.txt/);
    assert.match(human.stderr, /error: .* 2 problems; the receipt says so/);

    const imp = brickpost(pub, ['receipt', 'import', join(root, 'r3.json')]);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /verification FAILED \(stat, 2 problems\)/);
    assert.equal(receiptRows().at(-1)!.verified, 'failed');
  });

  test('signature of a destination names its dataset and last shipment', () => {
    const out = join(root, 'dest.bpsig');
    const r = brickpost(sub, ['signature', dest, '--out', out, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = lastEvent(r).result;
    assert.deepEqual(
      { dataset: s.dataset, datasetId: s.datasetId, state: s.state },
      { dataset: 'survey', datasetId: packed.datasetId, state: { shipment: packed.shipmentId, seq: 1 } },
    );
    const z = spawnSync('zstd', ['-dc', out], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const head = JSON.parse(z.stdout.split('\n')[0]!);
    assert.equal(head.publisher, pubId.keyId);
    assert.equal(brickpost(sub, ['signature', dest, '--out', join(root, 'x.bpsig'), '--dataset', 'other']).code, 2, 'a destination holds its own dataset');
  });

  test('receipt of a folder that is not a destination is NOT_FOUND', () => {
    const r = brickpost(sub, ['receipt', src, '--out', join(root, 'none.json'), '--json']);
    assert.equal(r.code, 2);
    assert.equal(lastEvent(r).code, 'NOT_FOUND');
  });

  /** A file of the generated dataset in the destination (not notes.txt). */
  function firstDatasetFile(): string {
    const list = brickpost(sub, ['ls', drive, '--json'])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    return list.find((e) => e.type === 'file' && e.path !== 'notes.txt' && e.size > 0).path;
  }
});
