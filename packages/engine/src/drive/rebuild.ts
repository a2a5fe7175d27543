import { mkdir, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, isBrickpostError, quote, type SetShare } from '@brickpost/manifest';
import { commandLine } from '../io/command.js';
import type { Progress } from '../io/progress.js';
import { SeqWriter } from '../io/seq-writer.js';
import { combine, reconstructionMatrix } from '../parity/rs.js';
import { openDriveFile } from '../io/read-limited.js';
import { lostShares, setStatus, type SetMembers } from './set.js';

const UNIT = 1 << 20;

/**
 * Rebuilds the packs of the data drives missing from a set (FORMAT.md
 * §drive-sets) into the bag folder `out`, from any k drives present: each
 * range of a lost share stream is the combination of the same range of
 * the k streams at hand. Every rebuilt pack must match its SHA-256 in the
 * signed set file before anything uses it. Returns the bytes rebuilt.
 * @throws BrickpostError SET_INCOMPLETE, FIXITY_MISMATCH (a drive used is damaged), FILE_MISSING, NO_SPACE, IO
 */
export async function rebuildMissing(m: SetMembers, out: string, progress?: Progress, signal?: AbortSignal): Promise<number> {
  if (!m.set) return 0;
  const set = m.set;
  const st = setStatus(set, m.members.keys());
  const lost = lostShares(m);
  if (lost.length === 0) return 0;
  if (!st.recoverable)
    throw new BrickpostError('SET_INCOMPLETE', `${st.needed} more drives of the set are needed to rebuild drives ${lost.map((s) => s.index + 1).join(', ')}`);
  const chosen = [...m.members.keys()].sort((a, b) => a - b).slice(0, set.data);
  const rows = reconstructionMatrix(
    set.data,
    set.parity,
    chosen,
    lost.map((s) => s.index),
  );
  const streams = chosen.map((i) => new ShareStream(set.shares[i]!, m.members.get(i)!.dir));
  let bytes = 0;
  try {
    for (const [r, share] of lost.entries()) {
      for (const f of share.files) {
        const path = join(out, f.path);
        await mkdir(dirname(path), { recursive: true });
        await rm(path, { force: true });
        const w = await SeqWriter.create(path);
        try {
          for (let pos = f.offset; pos < f.offset + f.size; pos += UNIT) {
            if (signal?.aborted) throw new BrickpostError('CANCELLED', 'cancelled while rebuilding a drive');
            const len = Math.min(UNIT, f.offset + f.size - pos);
            const srcs = await Promise.all(streams.map((s) => s.read(pos, len)));
            const buf = Buffer.allocUnsafe(len);
            combine(buf, srcs, rows[r]!, len);
            await w.write(buf);
            bytes += len;
            progress?.add(len);
          }
        } catch (e) {
          await w.abort();
          throw e;
        }
        if ((await w.close()) !== f.sha256) {
          throw new BrickpostError(
            'FIXITY_MISMATCH',
            `rebuilt ${quote(f.path)} of drive ${share.index + 1} does not match its SHA-256 in the set file: a drive used to rebuild it is damaged`,
            {
              hint: `verify each drive used, to find the damaged one: ${chosen.map((i) => commandLine(['verify', m.members.get(i)!.dir])).join('; ')}`,
            },
          );
        }
        progress?.add(0, 1);
      }
    }
  } finally {
    for (const s of streams) await s.close();
  }
  return bytes;
}

/**
 * Reads a share stream (its files back to back; zeros past its end) from a
 * drive's bag: each file no further than the size the set file gives it.
 */
export class ShareStream {
  private fh: FileHandle | null = null;
  private at = -1;

  constructor(
    private readonly share: SetShare,
    private readonly bag: string,
  ) {}

  async read(pos: number, len: number): Promise<Buffer> {
    const buf = Buffer.alloc(len);
    let done = 0;
    while (done < len && pos + done < this.share.bytes) {
      const p = pos + done;
      const i = this.fileAt(p);
      const f = this.share.files[i]!;
      const fh = await this.handle(i);
      const n = Math.min(len - done, f.offset + f.size - p);
      const { bytesRead } = await fh.read(buf, done, n, p - f.offset);
      if (bytesRead < n)
        throw new BrickpostError('TRUNCATED', `${quote(f.path)} on drive ${this.share.index + 1} is shorter than the set file says`, {
          path: join(this.bag, f.path),
          hint: this.hint(),
        });
      done += n;
    }
    return buf;
  }

  private fileAt(pos: number): number {
    let lo = 0;
    let hi = this.share.files.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.share.files[mid]!.offset <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private async handle(i: number): Promise<FileHandle> {
    if (this.at === i && this.fh) return this.fh;
    await this.fh?.close();
    this.fh = null;
    const f = this.share.files[i]!;
    const path = join(this.bag, f.path);
    try {
      this.fh = await openDriveFile(path, `${quote(f.path)} of drive ${this.share.index + 1}`);
    } catch (e) {
      if (isBrickpostError(e) && e.code === 'FILE_MISSING')
        throw new BrickpostError('FILE_MISSING', `${quote(f.path)} of drive ${this.share.index + 1} is missing`, { path, hint: this.hint() });
      throw e;
    }
    this.at = i;
    return this.fh;
  }

  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = null;
  }

  /** What to do about a file of this drive that is not as the set file says. */
  private hint(): string {
    return `${commandLine(['verify', this.bag])} says whether that drive's recovery data can repair it; or give another drive of the set instead`;
  }
}
