import { randomBytes } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Compressor } from 'zstd-napi';
import {
  FORMAT_VERSION,
  frame,
  MANIFEST_FORMAT,
  MANIFEST_FORMAT_V1,
  MANIFEST_PATH,
  minisign,
  packPath,
  type PackedRef,
  type PackRecord,
  type ShipmentInfo,
  type ShipmentRecord,
} from '@brickpost/manifest';
import { chunkId, chunkKey, encodeChunk } from '../chunk/index.js';
import { bagDir, newShipmentId } from '../drive/layout.js';
import { sealBag } from '../drive/seal.js';
import { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';
import { packHeaderFrame } from '../pack/pack-writer.js';
import { sha256File } from '../io/sha256-file.js';
import { ageEncrypt } from './age-file.js';
import { editBagInfo, resealTags } from './reseal.js';

/** One chunk to store in a crafted shipment's packs. */
export interface CraftChunk {
  /** The chunk's bytes: what its length and default id describe. */
  data: Buffer;
  /** The frame stored in the pack; default: encodeChunk(data) as the packer makes it. */
  frame?: Buffer;
  /** The id manifests name it by; default: chunkId(chunk key, data). */
  id?: Buffer;
  /** Pack index to store it in; default 0. */
  pack?: number;
}

/** What the caller's manifest function gets: where every chunk landed. */
export interface CraftLayout {
  shipment: string;
  datasetId: string;
  secret: Buffer;
  /** The dataset's chunk id key (derived from `secret`). */
  key: Buffer;
  /** The shipment header record a packer would write first. */
  header: ShipmentRecord;
  /** Chunk name → the chunk ref a packer would write for it. */
  refs: Map<string, PackedRef>;
  /** Chunk name → its bytes. */
  data: Map<string, Buffer>;
  /** The pack index records a packer would write, in order. */
  packs: PackRecord[];
}

/** Everything a crafted shipment is made of; only the manifest is required. */
export interface CraftOptions {
  /** Drive root; the bag is written to DRIVE/brickpost/<shipment>/. */
  drive: string;
  /** Signs the tag manifest (and is the publisher key bag-info names). */
  signingKey: minisign.SigningKey;
  /** age recipients (`age1…`) of the packs and the manifest. */
  recipients: string[];
  shipment?: string;
  dataset?: string;
  datasetId?: string;
  /** 32-byte dataset secret; random by default. */
  secret?: Buffer;
  seq?: number;
  parent?: string | null;
  bases?: Array<[string, number]>;
  against?: string | null;
  label?: string;
  publisherName?: string;
  created?: string;
  /** Named chunks, stored in definition order within their pack. */
  chunks?: Iterable<[string, CraftChunk]>;
  /** Number of packs; default one past the highest pack a chunk names (0 with no chunks). */
  packCount?: number;
  /** The plaintext that opens pack `index`; default packHeaderFrame(shipment, index). */
  packHeader?: (index: number, shipment: string) => Buffer;
  /**
   * The manifest: lines (each written as given, plus a newline) or the whole
   * text, or its bytes (which need not be UTF-8). Nothing is validated, so
   * any hostile manifest can be expressed.
   */
  manifest: (layout: CraftLayout) => string[] | string | Buffer;
  /** Compresses the manifest text into the zstd frames that follow the header frame; default one zstd frame, level 6. */
  manifestFrames?: (text: Buffer) => Buffer;
  /** Text of the manifest plaintext's header frame; default `brickpost-manifest/v1\n`. */
  manifestFormat?: string;
  /** Manifest format version of the header record (and, unless manifestFormat, of the header frame); default 1, as vectors were written. */
  manifestVersion?: 1 | 2;
  /** Overrides of the typed bag-info values passed to sealBag. */
  info?: Partial<ShipmentInfo>;
  /** Raw bag-info.txt field overrides (null removes a field), written after sealing and re-signed. */
  bagInfo?: Record<string, string | null>;
  /** Runs after the payload is written and before the bag is sealed: changes made here are signed. */
  beforeSeal?: (bagDir: string) => Promise<void>;
}

/** A crafted shipment on a drive. */
export interface CraftedShipment {
  id: string;
  /** The bag folder. */
  dir: string;
  layout: CraftLayout;
  /** The values sealBag wrote into bag-info.txt (before raw overrides). */
  info: ShipmentInfo;
}

/**
 * Writes a complete shipment bag from caller-supplied manifest lines and
 * chunks, with the real building blocks: chunks framed by encodeChunk and
 * named by chunkId, packs opened by packHeaderFrame and age-encrypted with
 * createHeader/PayloadEncryptor, the manifest behind its format frame in a
 * zstd frame, and the bag sealed and signed by sealBag. Unlike the packer it
 * checks nothing, so tests can write what a hostile or broken publisher
 * would. Test use only.
 * @throws BrickpostError as sealBag and the age writer do (bad recipient, I/O).
 */
export async function craftShipment(opts: CraftOptions): Promise<CraftedShipment> {
  const id = opts.shipment ?? newShipmentId(randomBytes(4));
  const secret = opts.secret ?? randomBytes(32);
  const key = chunkKey(secret);
  const datasetId = opts.datasetId ?? randomBytes(8).toString('hex');
  const dataset = opts.dataset ?? 'crafted';
  const seq = opts.seq ?? 1;
  const parent = opts.parent ?? null;
  const label = opts.label ?? '';
  const created = opts.created ?? new Date().toISOString();
  const publisherKey = minisign.keyIdHex(opts.signingKey.keyId);
  const dir = bagDir(opts.drive, id);
  await mkdir(join(dir, 'data'), { recursive: true });

  const chunks = [...(opts.chunks ?? [])];
  const packCount = opts.packCount ?? chunks.reduce((n, [, c]) => Math.max(n, (c.pack ?? 0) + 1), 0);
  const refs = new Map<string, PackedRef>();
  const data = new Map<string, Buffer>();
  const packs: PackRecord[] = [];
  for (let p = 0; p < packCount; p++) {
    const plain: Buffer[] = [opts.packHeader ? opts.packHeader(p, id) : packHeaderFrame(id, p)];
    let at = plain[0]!.length;
    let count = 0;
    for (const [name, c] of chunks) {
      if ((c.pack ?? 0) !== p) continue;
      const f = c.frame ?? encodeChunk(c.data, 3).frame;
      const cid = c.id ?? chunkId(key, c.data);
      refs.set(name, [cid.toString('hex'), p, at, f.length, c.data.length]);
      data.set(name, c.data);
      plain.push(f);
      at += f.length;
      count++;
    }
    const file = join(dir, packPath(p));
    await mkdir(dirname(file), { recursive: true });
    const sealed = ageEncrypt(Buffer.concat(plain), opts.recipients);
    await writeFile(file, sealed);
    packs.push({ t: 'pack', i: p, path: packPath(p), size: sealed.length, plain: at, chunks: count });
  }

  const header: ShipmentRecord = {
    t: 'shipment',
    format: opts.manifestVersion === 2 ? MANIFEST_FORMAT : MANIFEST_FORMAT_V1,
    shipment: id,
    dataset,
    datasetId,
    seq,
    parent,
    bases: opts.bases ?? [],
    against: opts.against ?? null,
    label,
    created,
    publisher: publisherKey,
    secret: secret.toString('base64'),
    chunker: 'fastcdc-v1',
  };
  const layout: CraftLayout = { shipment: id, datasetId, secret, key, header, refs, data, packs };
  const lines = opts.manifest(layout);
  const bytes = Buffer.isBuffer(lines) ? lines : Buffer.from(typeof lines === 'string' ? lines : lines.map((l) => l + '\n').join(''), 'utf8');
  const format = opts.manifestFormat ?? `${header.format}\n`;
  const compress =
    opts.manifestFrames ??
    ((b: Buffer): Buffer => {
      const zstd = new Compressor();
      zstd.setParameters({ compressionLevel: 6, contentSizeFlag: true });
      return zstd.compress(b);
    });
  const manifestPlain = Buffer.concat([frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(format, 'utf8')), compress(bytes)]);
  await writeFile(join(dir, MANIFEST_PATH), ageEncrypt(manifestPlain, opts.recipients));

  await opts.beforeSeal?.(dir);
  const payloadPaths = [MANIFEST_PATH, ...packs.map((p) => p.path)];
  const payload: Array<{ path: string; digest: string }> = [];
  let payloadBytes = 0;
  for (const p of payloadPaths) {
    const st = await stat(join(dir, p)).catch(() => null);
    if (!st) continue;
    payload.push({ path: p, digest: await sha256File(join(dir, p)) });
    payloadBytes += st.size;
  }
  const counted = countEntries(bytes);
  const info: ShipmentInfo = {
    format: FORMAT_VERSION,
    shipment: id,
    dataset,
    datasetId,
    seq,
    parent,
    label,
    publisher: opts.publisherName ?? 'testkit publisher',
    publisherKey,
    created,
    entries: counted.entries,
    files: counted.files,
    bytes: counted.bytes,
    packs: packCount,
    payloadBytes,
    payloadFiles: payload.length,
    bagIndex: 1,
    bagCount: 1,
    setParity: 0,
    recovery: 0,
    ...opts.info,
  };
  await sealBag(dir, info, payload, opts.signingKey);
  if (opts.bagInfo) {
    await editBagInfo(dir, opts.bagInfo);
    await resealTags(dir, opts.signingKey);
  }
  return { id, dir, layout, info };
}

/**
 * Entries, files and bytes of a manifest's text, counted leniently (lines
 * that do not parse are skipped), a line at a time: a manifest of millions
 * of records is longer than a JavaScript string may be.
 */
function countEntries(bytes: Buffer): { entries: number; files: number; bytes: number } {
  const out = { entries: 0, files: 0, bytes: 0 };
  for (let at = 0; at < bytes.length;) {
    const nl = bytes.indexOf(10, at);
    const end = nl < 0 ? bytes.length : nl;
    const line = bytes.toString('utf8', at, end);
    at = end + 1;
    let r: { t?: unknown; size?: unknown };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue;
    }
    if (r?.t === 'dir' || r?.t === 'link' || r?.t === 'hard' || r?.t === 'special') out.entries++;
    if (r?.t === 'file') {
      out.entries++;
      out.files++;
      if (typeof r.size === 'number') out.bytes += r.size;
    }
  }
  return out;
}
