import { Compressor } from 'zstd-napi';
import type { ChunkRef } from '@brickpost/manifest';
import { handmadeFrame, type FrameBlock } from './frames.js';
import { leavesDest } from '../ingest/dest-view.js';
import type { CraftLayout } from './craft.js';
import { word, type RecipeLine } from './recipe-parse.js';

/** An entry an ok ingest must produce, in manifest order. */
export interface ExpectedEntry {
  path: string;
  type: 'dir' | 'file' | 'link';
  data?: Buffer;
  /** A symbolic link's target. */
  target?: string;
}

/** Default mtime of crafted entries, decimal nanoseconds. */
const MTIME = '1700000000000000000';

/**
 * The manifest lines of the recipe's manifest commands, and the tree they
 * describe. A line is a string, or bytes when a `raw` line has `{{hex HEX}}`.
 */
export function manifestLines(cmds: RecipeLine[], layout: CraftLayout): { lines: Array<string | Buffer>; expected: ExpectedEntry[] } {
  const lines: Array<string | Buffer> = [];
  const expected: ExpectedEntry[] = [];
  const v2 = layout.header.format === 'brickpost-manifest/v2';
  const t = v2 ? { dirs: 0, files: 0, links: 0, hard: 0, specials: 0, bytes: 0, chunks: 0, packs: 0 } : { dirs: 0, files: 0, bytes: 0, chunks: 0, packs: 0 };
  const count = (k: 'links' | 'hard' | 'specials'): void => void ((t as Record<string, number>)[k]! += 1);
  // `hole:N` in a chunk list is a hole of N bytes (v2); `NAME*N` is the chunk NAME N times.
  const refsOf = (l: RecipeLine, from: number): { refs: ChunkRef[]; data: Buffer; chunks: number } => {
    const names = l.words.slice(from).flatMap((w) => {
      const m = /^(.+)\*([0-9]+)$/.exec(w.text);
      return m ? new Array<string>(Number(m[2])).fill(m[1]!) : [w.text];
    });
    const refs = names.map((n): ChunkRef => {
      if (n.startsWith('hole:')) return [Number(n.slice(5))];
      const r = layout.refs.get(n);
      if (!r) throw new Error(`recipe line ${l.n}: no chunk ${n}`);
      return r;
    });
    const data = Buffer.concat(names.map((n) => (n.startsWith('hole:') ? Buffer.alloc(Number(n.slice(5))) : layout.data.get(n)!)));
    return { refs, data, chunks: names.filter((n) => !n.startsWith('hole:')).length };
  };
  cmds.forEach((l, k) => {
    const emit = (base: Record<string, unknown>): Record<string, unknown> => {
      const r = { ...base, ...l.json };
      lines.push(JSON.stringify(r));
      return r;
    };
    switch (l.cmd) {
      case 'header':
        emit({ ...layout.header });
        break;
      case 'dir':
        emit({ t: 'dir', p: word(l, 0), mode: 0o755, mtime: MTIME });
        t.dirs++;
        expected.push({ path: word(l, 0), type: 'dir' });
        break;
      case 'file': {
        const { refs, data } = refsOf(l, 1);
        // The size covers the chunks of the continuation records that follow.
        let size = data.length;
        for (let j = k + 1; cmds[j]?.cmd === 'more'; j++) size += refsOf(cmds[j]!, 0).data.length;
        const r = emit({ t: 'file', p: word(l, 0), size, mode: 0o644, mtime: MTIME, c: refs });
        t.files++;
        t.bytes += Number(r.size);
        t.chunks += refsOf(l, 1).chunks;
        expected.push({ path: word(l, 0), type: 'file', data });
        break;
      }
      case 'more': {
        const { refs, data, chunks } = refsOf(l, 0);
        emit({ t: 'more', c: refs });
        t.chunks += chunks;
        const last = expected[expected.length - 1];
        if (last?.data) last.data = Buffer.concat([last.data, data]);
        break;
      }
      case 'link': {
        const r = emit({ t: 'link', p: word(l, 0), target: word(l, 1), mtime: MTIME });
        count('links');
        if (!leavesDest(String(r.p), String(r.target))) expected.push({ path: word(l, 0), type: 'link', target: word(l, 1) });
        break;
      }
      case 'hard': {
        emit({ t: 'hard', p: word(l, 0), to: word(l, 1) });
        count('hard');
        const to = expected.find((e) => e.path === word(l, 1));
        if (to?.data) expected.push({ path: word(l, 0), type: 'file', data: to.data });
        break;
      }
      case 'special':
        emit({ t: 'special', p: word(l, 0), kind: word(l, 1), mode: 0o644, mtime: MTIME });
        count('specials');
        break;
      case 'packs':
        for (const p of layout.packs) emit({ ...p });
        t.packs += layout.packs.length;
        break;
      case 'end':
        emit({ t: 'end', ...t });
        break;
      case 'raw':
        lines.push(rawLine(l, layout));
        break;
    }
  });
  return { lines, expected };
}

/** A raw line, expanded; its bytes when it holds `{{hex HEX}}` (bytes as given, e.g. not UTF-8). */
function rawLine(l: RecipeLine, layout: CraftLayout): string | Buffer {
  const parts = l.rest.split(/\{\{hex ([0-9a-fA-F]*)\}\}/);
  if (parts.length === 1) return expand(l.rest, l, layout);
  return Buffer.concat(parts.map((p, k) => (k % 2 === 1 ? Buffer.from(p, 'hex') : Buffer.from(expand(p, l, layout), 'utf8'))));
}

/**
 * `{{ref NAME}}`, `{{id NAME}}`, `{{len NAME}}`, `{{end NAME}}` (where its
 * frame ends), `{{shipment}}`, `{{repeat N TEXT}}` and `{{rle HEX N}}` (a
 * marker rleFrames turns into a frame of N bytes HEX) in a raw line.
 */
function expand(text: string, l: RecipeLine, layout: CraftLayout): string {
  return text.replace(/\{\{(\w+)(?: (\w+))?(?: (\w+))?\}\}/g, (_, what: string, name?: string, text?: string) => {
    if (what === 'shipment') return layout.shipment;
    if (what === 'repeat') return (text ?? '').repeat(Number(name));
    if (what === 'rle') return `\u0000rle:${(name ?? '').toLowerCase()}:${Number(text)}\u0000`;
    const r = layout.refs.get(name ?? '');
    if (!r) throw new Error(`recipe line ${l.n}: no chunk ${name}`);
    if (what === 'ref') return JSON.stringify(r);
    if (what === 'id') return r[0];
    if (what === 'len') return String(r[4]);
    if (what === 'end') return String(r[2] + r[3]);
    throw new Error(`recipe line ${l.n}: unknown placeholder ${what}`);
  });
}

/** The marker of `{{rle HEX N}}` in the manifest text. */
const RLE_MARK = /\u0000rle:([0-9a-f]{2}):([0-9]+)\u0000/;

/**
 * The manifest text's frames when it holds `{{rle HEX N}}` markers: the
 * text between them in zstd frames (level 6, content size given), each
 * marker a frame of RLE blocks declaring and decoding to N bytes HEX (a
 * few bytes per 128 KiB, so a gibibyte of text costs the drive kilobytes).
 * Null when the text has no marker.
 */
export function rleFrames(text: Buffer): Buffer | null {
  const parts = text.toString('latin1').split(new RegExp(RLE_MARK.source, 'g'));
  if (parts.length === 1) return null;
  const out: Buffer[] = [];
  for (let k = 0; k < parts.length; k += 3) {
    if (parts[k] !== '') {
      const z = new Compressor();
      z.setParameters({ compressionLevel: 6, contentSizeFlag: true });
      out.push(z.compress(Buffer.from(parts[k]!, 'latin1')));
    }
    if (k + 2 < parts.length) {
      const byte = parseInt(parts[k + 1]!, 16);
      const n = Number(parts[k + 2]);
      const blocks: FrameBlock[] = [];
      for (let left = n; left > 0; left -= 128 << 10) blocks.push({ type: 'rle', byte, size: Math.min(128 << 10, left) });
      out.push(handmadeFrame(blocks, n));
    }
  }
  return Buffer.concat(out);
}
