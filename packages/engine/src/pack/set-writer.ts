import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type age, formatSetFile, MANIFEST_PATH, packPath, quote, SET_PATH, type DriveSet, type minisign, type ShipmentInfo } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { publisherCustodyLog } from '../custody/publisher.js';
import { DRIVE_DIR } from '../drive/layout.js';
import { writePeerCopies } from '../drive/peers.js';
import { sealBag } from '../drive/seal.js';
import { toEnvironmentError } from '../io/errors.js';
import { native } from '../io/native.js';
import { failpoint } from '../io/failpoint.js';
import { syncDir } from '../io/sync.js';
import { DriveTarget, type DriveFile } from './drive-target.js';
import { ManifestOut } from './manifest-out.js';
import { PackWriter, SealRing, type PackInfo } from './pack-writer.js';
import { ParityOut } from './parity-out.js';

/** What bag-info says that is the same on every drive of the shipment. */
export type CommonInfo = Omit<ShipmentInfo, 'packs' | 'payloadBytes' | 'payloadFiles' | 'bagIndex' | 'bagCount' | 'setParity' | 'recovery'>;

/**
 * Writes one shipment onto one drive or a drive set (FORMAT.md §layout,
 * §drive-sets): the first k drives hold the packs, the last m the parity
 * of their share streams, every drive the manifest, the set file and its
 * own recovery data; each drive is sealed as a bag of its own and renamed
 * from `.part` only when every drive is sealed.
 */
export class ShipmentWriter {
  readonly k: number;
  /** Each data share's sealed-output Buffers, reused from pack to pack (without parity). */
  private readonly rings: Array<SealRing | undefined> = [];
  private constructor(
    readonly targets: DriveTarget[],
    readonly parityCount: number,
    readonly manifest: ManifestOut,
    private readonly parity: ParityOut | null,
    private readonly recipients: age.Recipient[],
    private readonly shipment: string,
    private readonly recovery: number,
  ) {
    this.k = targets.length - parityCount;
  }

  /**
   * Opens every drive's `.part` folder and starts the manifest on each.
   * @throws BrickpostError NO_SPACE, PERMISSION, IO
   */
  static async open(o: {
    drives: string[];
    parity: number;
    recovery: number;
    capacities: number[];
    shipment: string;
    recipients: age.Recipient[];
    onEvent: EventSink;
  }): Promise<ShipmentWriter> {
    const targets: DriveTarget[] = [];
    try {
      for (const [i, root] of o.drives.entries()) {
        targets.push(
          await DriveTarget.open({
            root,
            share: i,
            drives: o.drives.length,
            shipment: o.shipment,
            capacity: o.capacities[i]!,
            recovery: o.recovery,
            onEvent: o.onEvent,
          }),
        );
      }
      const k = o.drives.length - o.parity;
      const parity = o.parity > 0 ? new ParityOut(k, targets.slice(k)) : null;
      const manifest = await ManifestOut.create(await Promise.all(targets.map((t) => t.create(MANIFEST_PATH))), o.recipients);
      return new ShipmentWriter(targets, o.parity, manifest, parity, o.recipients, o.shipment, o.recovery);
    } catch (e) {
      for (const t of targets) await t.remove();
      throw e;
    }
  }

  /**
   * Feeds the packs a resumed shipment keeps (sorted by number) to the
   * parity and recovery data, reading the data drives in step so the
   * parity's lag stays small.
   */
  async replay(kept: PackInfo[]): Promise<void> {
    const feeds = Array.from({ length: this.k }, (_, share) => {
      const t = this.targets[share]!;
      const tap = this.parity?.tap(share);
      return (async function* () {
        for (const p of kept.filter((x) => x.share === share)) yield* t.replay(p.path, tap);
      })();
    });
    const fed = new Array<number>(this.k).fill(0);
    const live = new Set(feeds.keys());
    while (live.size > 0) {
      const share = [...live].reduce((a, b) => (fed[b]! < fed[a]! ? b : a));
      const r = await feeds[share]!.next();
      if (r.done) live.delete(share);
      else fed[share]! += r.value;
    }
  }

  /** Starts pack `index` on data share `share` (ChunkStore's OpenPack). */
  openPack = async (index: number, share: number): Promise<PackWriter> => {
    const core = native();
    // The native core hashes the pack as it seals it.
    const out = await this.targets[share]!.create(packPath(index), this.parity?.tap(share), { hash: core === null });
    // Parity keeps views of a share's bytes until the other shares catch up: there, sealed Buffers are not reused.
    const ring = this.parity === null ? (this.rings[share] ??= new SealRing()) : null;
    return PackWriter.create(out, index, share, this.recipients, this.shipment, core, ring);
  };

  /**
   * Finishes the parity, writes the set file, finishes each drive's
   * recovery data, seals and signs every drive's bag, calls `beforePublish`
   * (the catalog records the shipment sealed: a catalog that cannot be
   * written stops here, with no sealed shipment on any drive), then renames
   * the bags into place. Returns the bytes written to all drives and the
   * bag folders.
   * @throws BrickpostError NO_SPACE, PERMISSION, IO, and what beforePublish throws
   */
  async seal(
    info: CommonInfo,
    streams: PackInfo[][],
    manifest: { size: number; sha256: string },
    key: minisign.SigningKey,
    beforePublish: (bytesOnDrive: number) => void = () => undefined,
  ): Promise<{ bytesOnDrive: number; paths: string[] }> {
    const parityFiles = (await this.parity?.finish()) ?? [];
    const n = this.targets.length;
    const shareFiles: DriveFile[][] = [...streams.map((s) => s.map((p) => ({ path: p.path, size: p.size, sha256: p.sha256 }))), ...parityFiles];
    const packs = streams.reduce((a, s) => a + s.length, 0);
    let setFile: DriveFile | null = null;
    if (n > 1) {
      const set: DriveSet = {
        shipment: this.shipment,
        data: this.k,
        parity: this.parityCount,
        shares: shareFiles.map((files, i) => {
          let offset = 0;
          return {
            index: i,
            kind: i < this.k ? 'data' : 'parity',
            bytes: files.reduce((a, f) => a + f.size, 0),
            files: files.map((f) => ({ ...f, offset: (offset += f.size) - f.size })),
          };
        }),
      };
      const text = Buffer.from(formatSetFile(set), 'utf8');
      for (const t of this.targets) {
        const w = await t.create(SET_PATH);
        await w.write(text);
        setFile = { path: SET_PATH, size: text.length, sha256: await w.close() };
      }
    }
    let bytesOnDrive = 0;
    const recoveryFiles: string[][] = this.targets.map(() => []);
    await Promise.all(
      this.targets.map(async (t, i) => {
        const recovery = (await t.recovery?.finish()) ?? [];
        recoveryFiles[i] = recovery.map((f) => f.path);
        const payload = [{ path: MANIFEST_PATH, size: manifest.size, sha256: manifest.sha256 }, ...(setFile ? [setFile] : []), ...shareFiles[i]!, ...recovery];
        const bytes = payload.reduce((a, f) => a + f.size, 0);
        bytesOnDrive += bytes;
        const driveInfo: ShipmentInfo = {
          ...info,
          packs,
          payloadBytes: bytes,
          payloadFiles: payload.length,
          bagIndex: i + 1,
          bagCount: n,
          setParity: this.parityCount,
          recovery: this.recovery,
        };
        await sealBag(
          t.part,
          driveInfo,
          payload.map((f) => ({ path: f.path, digest: f.sha256 })),
          key,
          { custody: (digests) => publisherCustodyLog(driveInfo, key, digests) },
        );
        await syncDir(t.part);
        t.done();
      }),
    );
    // Every drive carries the others' signed tag files, so a lost drive can be rebuilt without the signing key.
    await writePeerCopies(
      this.targets.map((t) => t.part),
      recoveryFiles,
    );
    beforePublish(bytesOnDrive);
    await this.rename();
    return { bytesOnDrive, paths: this.targets.map((t) => t.final) };
  }

  /**
   * Renames every drive's sealed bag into place, each rename made durable.
   * When one fails (or its folder cannot be synced), those already renamed
   * go back to `.part`: no drive claims a shipment the pack did not finish,
   * and `pack --resume` seals them again.
   * @throws BrickpostError READ_ONLY, PERMISSION, IO, NO_SPACE
   */
  private async rename(): Promise<void> {
    const done: DriveTarget[] = [];
    try {
      for (const t of this.targets) {
        failpoint('pack-publish');
        await rename(t.part, t.final).catch((e: unknown) => {
          throw toEnvironmentError(e, `cannot move the sealed shipment into place on ${quote(t.root)}`, { on: 'drive' });
        });
        done.push(t);
        await syncDir(join(t.root, DRIVE_DIR));
      }
    } catch (e) {
      for (const t of done.reverse()) await rename(t.final, t.part).catch(() => undefined);
      throw e;
    }
  }

  /**
   * Stops after a failure: closes what is open and, unless `keep` (a
   * drive filled or failed: `pack --resume` continues), removes every
   * `.part` folder.
   */
  async abort(keep = false): Promise<void> {
    await this.parity?.abort();
    await this.manifest.abort();
    for (const t of this.targets) await (keep ? t.recovery?.abort() : t.remove());
  }
}
