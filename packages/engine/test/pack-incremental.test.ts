/**
 * Incremental packing at the engine level: a publisher and subscribers in
 * temporary homes, real files, and the written manifests read back with the
 * subscriber's identity. Each test builds on the shipments of the ones
 * before it (one dataset, one chain).
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { age, minisign, type ChunkRef, type DeltaRef, type FileRecord, type ShipmentRecord } from '@brickpost/manifest';
import type { PackOptions, PackSummary } from '../src/api/index.js';
import { chunkId, chunkKey } from '../src/chunk/index.js';
import { applyDelta, decodeDelta } from '../src/delta/index.js';
import { openShipment } from '../src/drive/open.js';
import { Engine } from '../src/engine.js';
import { loadIdentity } from '../src/keys/index.js';
import { SignatureFileWriter } from '../src/sigfile/index.js';
import { Progress } from '../src/io/progress.js';
import { readManifest } from '../src/verify/manifest-stream.js';
import { walkShipment } from '../src/verify/walk-shipment.js';

interface Shipped {
  header: ShipmentRecord;
  files: Map<string, { record: FileRecord; refs: ChunkRef[] }>;
}

const kind = (r: ChunkRef): 'held' | 'packed' | 'delta' => (r.length === 2 ? 'held' : r.length === 5 ? 'packed' : 'delta');
const kinds = (refs: ChunkRef[]): Set<string> => new Set(refs.map(kind));

describe('incremental pack', () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-incremental-'));
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  let pub: Engine;
  let sub: Engine;
  let other: Engine;
  let subRecipient = '';
  let otherRecipient = '';
  const chain: PackSummary[] = [];
  /** The big file's bytes when first shipped: the basis its deltas apply to. */
  let bigBefore = Buffer.alloc(0);
  let mediumBefore = Buffer.alloc(0);
  /** The shipment `other` has a receipt for. */
  let receipted: PackSummary | undefined;

  const pack = async (extra: Partial<PackOptions> = {}): Promise<PackSummary> => {
    // No recovery data: its floor (a block per group) would hide what the shipment itself carries.
    const s = await pub.pack({ source: src, drives: [drive], recipients: [subRecipient], dataset: 'incr', recovery: 0, ...extra }, () => undefined);
    chain.push(s);
    return s;
  };

  const read = async (s: PackSummary, reader: Engine = sub): Promise<Shipped> => {
    const pk = minisign.parsePublicKey(pub.whoami().minisignPublicKey);
    const opened = await openShipment(s.shipmentId, s.path, [{ keyId: pk.keyId, publicKey: pk.publicKey, name: 'publisher' }]);
    const identities = age.parseIdentityFile(readFileSync(reader.whoami().identityFile, 'utf8'));
    const out: Shipped = { header: null as unknown as ShipmentRecord, files: new Map() };
    let current: { record: FileRecord; refs: ChunkRef[] } | null = null;
    for await (const r of readManifest(opened, identities)) {
      if (r.t === 'shipment') out.header = r;
      if (r.t === 'file') out.files.set(r.p, (current = { record: r, refs: [...r.c] }));
      if (r.t === 'more') current!.refs.push(...r.c);
    }
    return out;
  };

  beforeAll(() => {
    mkdirSync(join(src, 'docs'), { recursive: true });
    mkdirSync(join(src, 'data'));
    mkdirSync(drive);
    bigBefore = randomBytes(12 << 20);
    mediumBefore = randomBytes(1 << 20);
    writeFileSync(join(src, 'data', 'big.bin'), bigBefore);
    writeFileSync(join(src, 'data', 'medium.bin'), mediumBefore);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, 'docs', `note-${i}.txt`), `note ${i}\n`.repeat(200 + i));
    writeFileSync(join(src, 'docs', 'unique.bin'), randomBytes(300_000));
    pub = Engine.open({ home: join(root, 'pub') });
    sub = Engine.open({ home: join(root, 'sub') });
    other = Engine.open({ home: join(root, 'other') });
    pub.keygen({ name: 'publisher' });
    subRecipient = sub.keygen({ name: 'subscriber' }).recipient;
    otherRecipient = other.keygen({ name: 'other' }).recipient;
  });

  afterAll(() => {
    for (const e of [pub, sub, other]) e.close();
    chmodSync(join(src, 'docs', 'note-3.txt'), 0o644);
    rmSync(root, { recursive: true, force: true });
  });

  test('the first shipment is self-contained and starts the chain', async () => {
    const s = await pack();
    assert.equal(s.seq, 1);
    assert.equal(s.parent, null);
    assert.equal(s.full, true);
    assert.deepEqual(s.bases, []);
    assert.equal(s.chunksHeld, 0);
    assert.equal(s.filesRead, s.files);
    const m = await read(s);
    assert.deepEqual(m.header.bases, []);
    for (const f of m.files.values()) assert.deepEqual(kinds(f.refs), new Set(f.refs.length ? ['packed'] : []), f.record.p);
  });

  test('an unchanged tree is all held refs, reads nothing and takes a manifest of room', async () => {
    const s = await pack();
    assert.equal(s.seq, 2);
    assert.equal(s.parent, chain[0]!.shipmentId);
    assert.equal(s.full, false);
    assert.deepEqual(s.bases, [{ shipmentId: chain[0]!.shipmentId, seq: 1 }]);
    assert.equal(s.filesUnchanged, s.files);
    assert.equal(s.filesRead, 0);
    assert.equal(s.bytesRead, 0);
    assert.equal(s.bytesIn, chain[0]!.bytesIn);
    assert.equal(s.packs, 0);
    assert.equal(s.chunksHeld, s.chunks);
    assert.ok(s.bytesOnDrive < 8192, `${s.bytesOnDrive} bytes on the drive`);
    const m = await read(s);
    assert.deepEqual(m.header.bases, [[chain[0]!.shipmentId, 1]]);
    assert.equal(m.header.parent, chain[0]!.shipmentId);
    for (const f of m.files.values()) for (const r of f.refs) assert.equal(kind(r), 'held', f.record.p);
  });

  test('a file unchanged by stat is not opened (its new bytes do not ship); --rehash opens it', async () => {
    const file = join(src, 'docs', 'note-3.txt');
    const old = (await read(chain[1]!)).files.get('docs/note-3.txt')!.refs;
    // Same size, other bytes, and no read permission.
    writeFileSync(file, readFileSync(file, 'utf8').replace('note 3', 'NOTE 3'));
    chmodSync(file, 0o000);
    const now = statSync(file, { bigint: true });
    // Times cannot be set back to the nanosecond (a ctime not at all): record the new ones, and the mode, in the reference tree.
    const db = new Database(join(root, 'pub', 'catalog.sqlite'));
    db.prepare("UPDATE tree_files SET mode = ?, mtime_ns = ?, ctime_ns = ? WHERE shipment_id = ? AND path = 'docs/note-3.txt'").run(
      Number(now.mode & 0o7777n),
      now.mtimeNs.toString(),
      now.ctimeNs.toString(),
      chain[1]!.shipmentId,
    );
    db.close();

    const s = await pack();
    assert.equal(s.filesRead, 0);
    assert.deepEqual((await read(s)).files.get('docs/note-3.txt')!.refs, old);

    if (process.getuid?.() === 0) {
      // root reads a mode-000 file: the rehashed file ships its new bytes.
      const r = await pack({ rehash: true });
      assert.equal(r.filesRead, r.files);
      assert.equal(r.filesUnchanged, 0);
      const refs = (await read(r)).files.get('docs/note-3.txt')!.refs;
      assert.notDeepEqual(
        refs.map((x) => x[0]),
        old.map((x) => x[0]),
      );
      assert.deepEqual(kinds(refs), new Set(['packed']));
    } else {
      await assert.rejects(pack({ rehash: true }), { code: 'PERMISSION' });
    }
    chmodSync(file, 0o644);
  });

  test('a moved file and a duplicated file cost no packed bytes', async () => {
    renameSync(join(src, 'docs', 'unique.bin'), join(src, 'data', 'moved.bin'));
    copyFileSync(join(src, 'data', 'moved.bin'), join(src, 'docs', 'copy.bin'));
    const s = await pack();
    const m = await read(s);
    assert.equal(m.files.has('docs/unique.bin'), false);
    for (const p of ['data/moved.bin', 'docs/copy.bin']) {
      const f = m.files.get(p)!;
      assert.ok(f.refs.length > 0);
      assert.deepEqual(kinds(f.refs), new Set(['held']), p);
    }
    assert.equal(s.packs, 0);
  });

  test('edited files get delta refs against their basis, and the deltas rebuild the chunks', async () => {
    const big = Buffer.from(bigBefore);
    randomBytes(3000).copy(big, 5 << 20);
    writeFileSync(join(src, 'data', 'big.bin'), big);
    appendFileSync(join(src, 'data', 'medium.bin'), randomBytes(5000));
    const s = await pack();
    assert.ok(s.chunksDelta >= 2, `${s.chunksDelta} delta chunks`);
    assert.ok(s.deltaFrameBytes < 64 * 1024, `${s.deltaFrameBytes} bytes of delta frames`);
    assert.ok(s.bytesOnDrive < 128 * 1024, `${s.bytesOnDrive} bytes on the drive`);
    const m = await read(s);
    for (const [p, size] of [
      ['data/big.bin', 12 << 20],
      ['data/medium.bin', 1 << 20],
    ] as const) {
      const f = m.files.get(p)!;
      assert.deepEqual(f.record.b?.slice(0, 2), [p, size], p);
      assert.ok(kinds(f.refs).has('delta'), p);
      assert.ok(!kinds(f.refs).has('packed'), p);
    }

    // Apply each delta to the old file, as a subscriber would, and check the chunk's id.
    const pk = minisign.parsePublicKey(pub.whoami().minisignPublicKey);
    const opened = await openShipment(s.shipmentId, s.path, [{ keyId: pk.keyId, publicKey: pk.publicKey, name: 'publisher' }]);
    let key: Buffer = Buffer.alloc(0);
    let basis: FileRecord['b'];
    let rebuilt = 0;
    await walkShipment(
      opened,
      readFileSync(sub.whoami().identityFile, 'utf8'),
      {
        header: (h) => void (key = chunkKey(Buffer.from(h.secret, 'base64'))),
        fileStart: (r) => void (basis = r.b),
        delta: async (ref: DeltaRef, delta: Buffer) => {
          const old = basis![0] === 'data/big.bin' ? bigBefore : mediumBefore;
          assert.equal(basis![1], old.length);
          const parts: Buffer[] = [];
          const n = await applyDelta(
            async (off, len) => old.subarray(off, off + len),
            old.length,
            basis![2],
            decodeDelta(delta),
            async (b) => void parts.push(Buffer.from(b)),
          );
          assert.equal(n, ref[4]);
          assert.equal(chunkId(key, Buffer.concat(parts)).toString('hex'), ref[0]);
          rebuilt++;
        },
      },
      new Progress(() => undefined, 'test'),
    );
    assert.equal(rebuilt, s.chunksDelta);
  });

  test('--full ships every chunk: no held or delta refs, no bases', async () => {
    const s = await pack({ full: true });
    assert.equal(s.full, true);
    assert.deepEqual(s.bases, []);
    assert.equal(s.chunksHeld + s.chunksDelta, 0);
    assert.equal(s.parent, chain[chain.length - 2]!.shipmentId);
    assert.ok(s.notes.some((n) => n.includes('--full')));
    const m = await read(s);
    assert.deepEqual(m.header.bases, []);
    for (const f of m.files.values()) {
      assert.equal(f.record.b, undefined);
      for (const r of f.refs) assert.equal(kind(r), 'packed');
    }
  });

  test('a deleted file is simply absent', async () => {
    rmSync(join(src, 'docs', 'note-7.txt'));
    const s = await pack();
    const m = await read(s);
    assert.equal(m.files.has('docs/note-7.txt'), false);
    assert.equal(m.files.has('docs/note-8.txt'), true);
    assert.equal(s.files, chain[chain.length - 2]!.files - 1);
    assert.equal(s.packs, 0);
  });

  test('recipients at different states: bases are both states, held chunks those both hold, and a note says so', async () => {
    // `other` gets one shipment; `sub` gets a later one with a new file; then both.
    const first = await pack({ recipients: [subRecipient, otherRecipient] });
    assert.equal(first.full, true, 'other never received the dataset');
    assert.ok(first.notes.some((n) => n.includes('never received')));
    writeFileSync(join(src, 'docs', 'new.bin'), randomBytes(200_000));
    const second = await pack();
    assert.equal(second.full, false);
    const both = await pack({ recipients: [subRecipient, otherRecipient] });
    assert.deepEqual(both.bases, [
      { shipmentId: first.shipmentId, seq: first.seq },
      { shipmentId: second.shipmentId, seq: second.seq },
    ]);
    assert.equal(both.notes.length, 1);
    assert.match(
      both.notes[0]!,
      new RegExp(
        `^${otherRecipient.slice(0, 4)}…${otherRecipient.slice(-6)} is at seq ${first.seq}, others at seq ${second.seq}: shipping what seq ${first.seq} lacks$`,
      ),
    );
    const m = await read(both, other);
    assert.deepEqual(kinds(m.files.get('docs/new.bin')!.refs), new Set(['packed']));
    assert.deepEqual(kinds(m.files.get('data/big.bin')!.refs), new Set(['held']));
  });

  test('with a receipt, a recipient may hold its receipted shipment or any sent since', async () => {
    const [third, last] = [chain[chain.length - 3]!, chain[chain.length - 1]!];
    receipted = third;
    // A receipt from `other` for the shipment it got before the last one (as brickpost receipt import records it).
    const db = new Database(join(root, 'pub', 'catalog.sqlite'));
    db.prepare(
      `INSERT INTO receipts (dataset_id, recipient, subscriber_key, shipment_id, seq, verified, state_digest, created_at, imported_at, file_sha256)
       VALUES (?, ?, 'K', ?, ?, 'full', 'd', 'now', 'now', 'f')`,
    ).run(last.datasetId, otherRecipient, third.shipmentId, third.seq);
    db.close();
    const s = await pack({ recipients: [otherRecipient] });
    assert.deepEqual(
      s.bases.map((b) => b.seq),
      [third.seq, last.seq],
    );
  });

  test('--against a signature file: what the folder has is held, the rest packed; no bases, no deltas', async () => {
    const mirror = join(root, 'mirror');
    mkdirSync(join(mirror, 'elsewhere'), { recursive: true });
    copyFileSync(join(src, 'data', 'medium.bin'), join(mirror, 'elsewhere', 'm.bin'));
    copyFileSync(join(src, 'docs', 'note-1.txt'), join(mirror, 'n1.txt'));
    const file = join(root, 'mirror.bpsig');
    const sig = await sub.signature({ dest: mirror, out: file, dataset: 'incr' }, () => undefined);
    pub.trustAdd(sub.whoami().minisignPublicKey, 'subscriber');
    appendFileSync(join(src, 'data', 'big.bin'), randomBytes(100));
    const s = await pack({ against: file });
    assert.equal(s.against, sig.sha256);
    assert.deepEqual(s.bases, []);
    assert.equal(s.full, false);
    assert.equal(s.filesUnchanged, 0);
    assert.equal(s.chunksDelta, 0);
    const m = await read(s);
    assert.equal(m.header.against, sig.sha256);
    assert.deepEqual(m.header.bases, []);
    assert.deepEqual(kinds(m.files.get('data/medium.bin')!.refs), new Set(['held']));
    assert.deepEqual(kinds(m.files.get('docs/note-1.txt')!.refs), new Set(['held']));
    assert.deepEqual(kinds(m.files.get('data/big.bin')!.refs), new Set(['packed']));
    for (const f of m.files.values()) assert.equal(f.record.b, undefined);
    // A file signed by a key the publisher does not trust is refused before anything is packed.
    pub.trustRemove('subscriber');
    await assert.rejects(pack({ against: file }), { code: 'UNTRUSTED_PUBLISHER' });
  });

  test('--against a request file of keyed ids: held by id, and refused for another dataset', async () => {
    const requestOf = async (datasetId: string, name: string): Promise<string> => {
      const file = join(root, name);
      const me = sub.whoami();
      const w = await SignatureFileWriter.create(file, {
        kind: 'request',
        ids: 'hmac',
        dataset: 'incr',
        datasetId,
        publisher: pub.whoami().keyId,
        state: null,
        subscriber: me.keyId,
        recipient: me.recipient,
      });
      const big = (await read(chain[chain.length - 1]!)).files.get('data/big.bin')!;
      await w.addFile(
        'data/big.bin',
        big.record.size,
        big.refs.map((r) => [r[0], r.length === 2 ? r[1] : r[4]] as [string, number]),
      );
      await w.close(loadIdentity(join(root, 'sub'), 'subscriber').signingKey);
      return file;
    };
    pub.trustAdd(sub.whoami().minisignPublicKey, 'subscriber');
    const s = await pack({ against: await requestOf(chain[0]!.datasetId, 'request.bpsig') });
    const m = await read(s);
    assert.deepEqual(kinds(m.files.get('data/big.bin')!.refs), new Set(['held']));
    assert.deepEqual(kinds(m.files.get('data/medium.bin')!.refs), new Set(['packed']));
    await assert.rejects(pack({ against: await requestOf('0123456789abcdef', 'other.bpsig') }), { code: 'DATASET_MISMATCH' });
  });

  test('the catalog keeps the trees a later shipment can be relative to, and the newest three', () => {
    const db = new Database(join(root, 'pub', 'catalog.sqlite'), { readonly: true });
    const kept = db.prepare('SELECT DISTINCT shipment_id FROM tree_files').pluck().all() as string[];
    const orphans = db.prepare('SELECT count(*) FROM sigs WHERE id NOT IN (SELECT sig_id FROM tree_files WHERE sig_id IS NOT NULL)').pluck().get();
    db.close();
    // The newest three (sub's last is the newest), other's receipted shipment and those sent to it since.
    const sentToOther = chain.filter((s) => s.seq > receipted!.seq && s.recipients.includes(otherRecipient));
    const want = new Set([...chain.slice(-3), receipted!, ...sentToOther].map((s) => s.shipmentId));
    assert.ok(want.size < chain.length);
    assert.deepEqual(new Set(kept), want);
    assert.equal(orphans, 0);
  });

  test('every shipment names the one before it as parent, and seq counts them', () => {
    chain.forEach((s, i) => {
      assert.equal(s.seq, i + 1);
      assert.equal(s.parent, i === 0 ? null : chain[i - 1]!.shipmentId);
    });
  });
});
