/**
 * The second shipment: after the initial scenario, the tool's source (a
 * copy of the cached dataset, which is never changed) is changed in place
 * by `make_dataset.py COPY --mutate 5 --seed 2`, and each tool ships it
 * again on top of what it did in the initial scenario. Every tool starts
 * from a fresh copy and sees the same mutation (it is deterministic for a
 * given tree and seed), and its second pack reads the same paths, and for
 * unchanged files the same inodes, as its first: what a user's folder
 * looks like a month later.
 *
 *   brickpost   pack COPY onto a second drive folder (incremental: the
 *               dataset was shipped before), then ingest it into the
 *               destination of the initial run, which must then equal COPY
 *   restic      a second `backup` of COPY into the initial repository
 *   borg        a second archive of COPY in the initial repository
 *
 * "Bytes on drive" of a second pack is what it added: the growth of the
 * drive folder or repository. The *changed bytes* are the new content the
 * mutation wrote (overwritten + inserted + appended + new files, from its
 * JSON summary); deletes, moves and the renamed folder add no content. As a
 * reference for delta encoding, `rdiff signature` + `rdiff delta` of the
 * largest mutated file gives librsync's delta size for that one file.
 */
import { spawnSync } from 'node:child_process';
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { measure } from '../lib/measure.mjs';
import { findMakeDataset } from '../lib/dataset.mjs';

const MUTATE = ['--mutate', '5', '--seed', '2'];
const MB = 1e6;

const ok = (steps, tool, op) => steps.find((s) => s.tool === tool && s.op === op && !s.error && !s.na && !s.skipped && s.wall != null);

function threshold(value, pass, shown) {
  if (value == null) return { status: 'n/a', value: null, shown: 'no data' };
  return { status: pass ? 'PASS' : 'MISS', value, shown };
}

/** brickpost's wall time of OP over its wall time of BASE, or null. */
function wallRatio(steps, op, base) {
  const a = ok(steps, 'brickpost', op);
  const b = ok(steps, 'brickpost', base);
  return a && b && b.wall > 0 ? a.wall / b.wall : null;
}

/** A command's stdout, throwing with its stderr when it fails. */
function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || '').trim()}`);
  return r.stdout;
}

export default {
  name: 'incremental',
  description: 'second shipment after make_dataset.py --mutate 5 --seed 2 of the source (a copy of the dataset), in place',
  /** Its ops run on the state the initial scenario left (drive, repository, destination). */
  after: 'initial',
  ops: ['pack-incr', 'ingest-incr'],

  /**
   * Untimed, before each tool's first op of this scenario: mutates the
   * working copy ctx.src in place. Sets ctx.mutation (make_dataset's JSON
   * summary) and ctx.changedBytes; throws if a tool would see another
   * mutation than the first one did.
   */
  async beforeOps(ctx, { log }) {
    log(`mutating ${ctx.src} (make_dataset.py ${MUTATE.join(' ')}) ...`);
    const mutation = JSON.parse(run('python3', [findMakeDataset(ctx.repoRoot), ctx.src, ...MUTATE, '-q']));
    const changedBytes = mutation.overwritten_bytes + mutation.inserted_bytes + mutation.appended_bytes + mutation.new_file_bytes;
    if (ctx.mutation && (ctx.mutation.bytes_changed !== mutation.bytes_changed || ctx.mutation.files !== mutation.files)) {
      throw new Error(`the mutation differs from the first one (bytes_changed ${mutation.bytes_changed} vs ${ctx.mutation.bytes_changed})`);
    }
    ctx.mutation = mutation;
    ctx.changedBytes = changedBytes;
  },

  /** What the results JSON keeps of this scenario. */
  info: (ctx) => ({ mutate: MUTATE.join(' '), changedBytes: ctx.changedBytes ?? null, mutation: ctx.mutation ?? null }),

  /**
   * Reference steps, once per run, on the mutated source: rdiff signature
   * of the largest mutated file as it was (in the cached dataset), then
   * rdiff delta of it as it is now. The record is also kept as ctx.rdiff for
   * describe().
   */
  async reference(ctx, { workRoot }) {
    const base = { tool: 'rdiff', op: 'delta' };
    if (spawnSync('bash', ['-c', 'command -v rdiff']).status !== 0) return [{ ...base, skipped: 'not installed: rdiff' }];
    let largest = null;
    for (const path of ctx.mutation.modified_large_files ?? []) {
      const st = await lstat(join(ctx.src, path)).catch(() => null);
      if (st?.isFile() && (!largest || st.size > largest.size)) largest = { path, size: st.size };
    }
    if (!largest) return [{ ...base, skipped: 'the mutation modified no large file' }];
    const sig = join(workRoot, 'rdiff.sig');
    const delta = join(workRoot, 'rdiff.delta');
    const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
    const r = await measure(
      [
        'bash',
        '-c',
        `set -e; rdiff signature ${q(join(ctx.dataset, largest.path))} ${q(sig)}; ` + `rdiff delta ${q(sig)} ${q(join(ctx.src, largest.path))} ${q(delta)}`,
      ],
      { stderr: join(workRoot, 'rdiff.stderr') },
    );
    const rec = {
      ...base,
      label: `signature + delta of ${largest.path}`,
      ...r,
      file: largest.path,
      fileBytes: largest.size,
      fileChangedBytes: ctx.mutation.changed_bytes_by_large_file?.[largest.path] ?? null,
    };
    delete rec.stdoutFile;
    if (r.exitCode !== 0) rec.error = `exit code ${r.exitCode}`;
    else rec.bytesOnDrive = (await lstat(delta)).size;
    await rm(sig, { force: true });
    await rm(delta, { force: true });
    ctx.rdiff = rec;
    return [rec];
  },

  /** Lines printed before the tables. */
  describe(ctx) {
    const m = ctx.mutation;
    if (!m) return [];
    const mb = (n) => `${(n / MB).toFixed(1)} MB`;
    return [
      `mutation: make_dataset.py COPY ${MUTATE.join(' ')}: ${mb(ctx.changedBytes)} of new content ` +
        `(overwritten ${mb(m.overwritten_bytes)}, inserted ${mb(m.inserted_bytes)}, appended ${mb(m.appended_bytes)}, ` +
        `new files ${mb(m.new_file_bytes)}); ${m.deleted_files} files (${mb(m.deleted_bytes)}) deleted, ` +
        `${m.renamed_files.length} moved, 1 folder renamed; ${m.files} files, ${mb(m.bytes)} after`,
      ...(ctx.rdiff?.bytesOnDrive != null
        ? [
            `reference: rdiff delta of ${ctx.rdiff.file} (${mb(ctx.rdiff.fileBytes)}` +
              `${ctx.rdiff.fileChangedBytes != null ? `, ${mb(ctx.rdiff.fileChangedBytes)} changed` : ''}): ${mb(ctx.rdiff.bytesOnDrive)}`,
          ]
        : []),
    ];
  },

  comparisons: [
    { title: 'bytes added by the 2nd pack (lower is better)', op: 'pack-incr', metric: 'bytesOnDrive' },
    { title: '2nd pack throughput', op: 'pack-incr', metric: 'mbps' },
  ],

  targets: [
    {
      text: 'incremental bytes on drive <= 1.1x changed bytes + 1 MB',
      judge(steps, ctx) {
        const s = ok(steps, 'brickpost', 'pack-incr');
        if (!s || s.bytesOnDrive == null || !ctx.changedBytes) return threshold(null);
        const limit = 1.1 * ctx.changedBytes + MB;
        return threshold(
          s.bytesOnDrive / ctx.changedBytes,
          s.bytesOnDrive <= limit,
          `${(s.bytesOnDrive / ctx.changedBytes).toFixed(2)}x changed (${(s.bytesOnDrive / MB).toFixed(1)} MB; limit ${(limit / MB).toFixed(1)} MB)`,
        );
      },
    },
    {
      text: 'incremental pack time <= 0.2x full pack time',
      judge: (steps) => {
        const r = wallRatio(steps, 'pack-incr', 'pack');
        return threshold(r, r != null && r <= 0.2, r == null ? '' : `${r.toFixed(2)}x`);
      },
    },
    {
      text: 'incremental ingest time <= 0.3x full ingest time',
      judge: (steps) => {
        const r = wallRatio(steps, 'ingest-incr', 'ingest');
        return threshold(r, r != null && r <= 0.3, r == null ? '' : `${r.toFixed(2)}x`);
      },
    },
  ],
};
