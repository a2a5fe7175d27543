import type Database from 'better-sqlite3';
import type { DirRecord, EntryAttributes } from '@brickpost/manifest';
import { dbPath, pathFromDb, type DestDb } from './dest-db.js';

/** Rows read at a time: the connection is free between pages, and memory does not grow with the tree. */
const PAGE = 512;

/**
 * The folders of the tree being planned, in manifest order, kept by the
 * planner for the commit's last phase (commit.ts, applyDirMeta), so that
 * phase does not decrypt and parse the whole manifest once more to find
 * them. A temporary table of the journal's connection: it lives as long as
 * the ingest that planned; a commit finished after a crash reads the
 * folders from the stored manifest instead.
 */
export class PlannedDirs {
  private readonly insert: Database.Statement<[string, number, string, string | null]>;
  private readonly page: Database.Statement<[number], { n: number; path: string; mode: number; mtime: string; attrs: string | null }>;

  constructor(private readonly db: DestDb) {
    db.db.exec(
      'CREATE TEMP TABLE IF NOT EXISTS planned_dirs (n INTEGER PRIMARY KEY, path TEXT NOT NULL, mode INTEGER NOT NULL, mtime TEXT NOT NULL, attrs TEXT); DELETE FROM planned_dirs;',
    );
    this.insert = db.db.prepare('INSERT INTO planned_dirs (path, mode, mtime, attrs) VALUES (?, ?, ?, ?)');
    this.page = db.db.prepare(`SELECT n, path, mode, mtime, attrs FROM planned_dirs WHERE n > ? ORDER BY n LIMIT ${PAGE}`);
  }

  /** Records a folder of the shipment's tree (in the order the manifest gives them). */
  add(r: DirRecord): void {
    this.insert.run(dbPath(r.p), r.mode, r.mtime, r.x || r.o || r.acl ? JSON.stringify({ x: r.x, o: r.o, acl: r.acl }) : null);
  }

  /** The folders recorded, as the manifest's records of them, in manifest order. */
  async *records(): AsyncGenerator<DirRecord> {
    for (let after = 0; ;) {
      const rows = this.page.all(after);
      for (const row of rows) {
        const attrs = row.attrs ? (JSON.parse(row.attrs) as EntryAttributes) : {};
        yield { t: 'dir', p: pathFromDb(row.path), mode: row.mode, mtime: row.mtime, ...attrs };
      }
      const last = rows[rows.length - 1];
      if (rows.length < PAGE || last === undefined) return;
      after = last.n;
    }
  }

  /** Empties the table. */
  clear(): void {
    this.db.db.exec('DELETE FROM planned_dirs');
  }
}
