import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { scanFolder } from '../sigfile/scan.js';
import { ChunkListDigest, type OldFile } from './apply-plan.js';

/**
 * The tree of a folder brickpost never wrote (seeding with a shipment built
 * `against` its signature): every file is read and cut like a pack cuts, with
 * the dataset's keyed chunk ids, so its unchanged files stay in place and its
 * chunks serve the shipment's held refs.
 */
export async function* scanOldTree(dest: string, key: Buffer, signal?: AbortSignal): AsyncGenerator<OldFile> {
  for await (const f of scanFolder(dest, { key, signal })) {
    if (f.changed) continue;
    const dig = new ChunkListDigest();
    const chunks: OldFile['chunks'] = [];
    let at = 0;
    for (const [id, len] of f.chunks) {
      dig.add(id, len);
      chunks.push({ id, offset: at, len });
      at += len;
    }
    const st = lstatSync(join(dest, f.p), { bigint: true });
    yield { path: f.p, size: f.size, mode: Number(st.mode & 0o777n), mtime: f.mtimeNs.toString(), digest: dig.digest(), chunks, ok: true };
  }
}
