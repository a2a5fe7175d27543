import { randomBytes } from 'node:crypto';
import { frame as zframe } from '@brickpost/manifest';
import { chunkId, chunkKey } from '../chunk/index.js';
import { packHeaderFrame } from '../pack/pack-writer.js';
import { craftShipment, type CraftChunk, type CraftedShipment, type CraftOptions } from './craft.js';
import { bombFrame, lyingFrame } from './frames.js';
import { content, int, parseRecipe, word, type RecipeLine } from './recipe-parse.js';
import { manifestLines, rleFrames, type ExpectedEntry } from './recipe-manifest.js';
import { MUTATIONS, mutate, party, type Parties } from './recipe-mutate.js';

/** A vector's drive, built: the shipment and what an ok ingest must produce. */
export interface BuiltVector {
  shipment: CraftedShipment;
  /** The tree the recipe's dir and file lines describe. */
  expected: ExpectedEntry[];
  /** Permission bits (`want-mode`) entries must have after an ok ingest. */
  modes: Array<{ path: string; mode: number }>;
}

/**
 * Builds the drive a vector's recipe describes (testkit/README.md lists
 * the commands): crafts the shipment onto `drive`, then applies the
 * mutations. `scratch` holds any second shipment a mutation needs. Throws
 * Error on a recipe it does not understand.
 */
export async function buildVector(body: string, parties: Parties, drive: string, scratch: string): Promise<BuiltVector> {
  const secret = randomBytes(32);
  const key = chunkKey(secret);
  const chunks = new Map<string, CraftChunk>();
  const manifest: RecipeLine[] = [];
  const before: RecipeLine[] = [];
  const after: RecipeLine[] = [];
  const bagInfo: Record<string, string | null> = {};
  const headers = new Map<number, Record<string, unknown>>();
  let recipients = [parties.self.recipient];
  let signer = parties.self;
  let manifestFormat: string | undefined;
  let manifestVersion: 1 | 2 | undefined;
  let windowLog: number | undefined;
  let packCount: number | undefined;
  let finalNewline = true;
  const modes: BuiltVector['modes'] = [];
  const chunk = (l: RecipeLine): CraftChunk => {
    const c = chunks.get(word(l, 0));
    if (!c) throw new Error(`recipe line ${l.n}: no chunk ${word(l, 0)}`);
    return c;
  };

  for (const l of parseRecipe(body)) {
    switch (l.cmd) {
      case 'encrypt-to':
        recipients = l.words.map((w) => party(parties, w.text, l).recipient);
        break;
      case 'sign-with':
        signer = party(parties, word(l, 0), l);
        break;
      case 'bag-info':
        bagInfo[word(l, 0)] = l.rest.slice(word(l, 0).length + 1);
        break;
      case 'pack-header':
        headers.set(int(l, 0), l.json ?? {});
        break;
      case 'pack-count':
        packCount = int(l, 0);
        break;
      case 'manifest-format':
        manifestFormat = word(l, 0);
        break;
      case 'manifest-version':
        manifestVersion = int(l, 0) === 2 ? 2 : 1;
        break;
      case 'manifest-window':
        windowLog = int(l, 0);
        break;
      case 'chunk': {
        const pack = l.words.find((w) => w.text.startsWith('pack=') && !w.quoted);
        chunks.set(word(l, 0), { data: content(l, 1, word(l, 0)), ...(pack ? { pack: Number(pack.text.slice(5)) } : {}) });
        break;
      }
      case 'frame':
        setFrame(chunk(l), l);
        break;
      case 'id': {
        const c = chunk(l);
        c.id = word(l, 1) === 'of' ? chunkId(key, content(l, 2, `${word(l, 0)}/id`)) : Buffer.from(word(l, 2), 'hex');
        break;
      }
      case 'header':
      case 'dir':
      case 'file':
      case 'link':
      case 'hard':
      case 'special':
      case 'more':
      case 'packs':
      case 'end':
      case 'raw':
        manifest.push(l);
        break;
      case 'want-mode':
        modes.push({ path: word(l, 0), mode: parseInt(word(l, 1), 8) });
        break;
      case 'no-final-newline':
        finalNewline = false;
        break;
      case 'before-seal':
        before.push({ ...l, cmd: word(l, 0), words: l.words.slice(1), rest: l.rest.slice(word(l, 0).length + 1) });
        break;
      default:
        if (!MUTATIONS.has(l.cmd)) throw new Error(`recipe line ${l.n}: unknown command ${l.cmd}`);
        after.push(l);
    }
  }

  let expected: ExpectedEntry[] = [];
  const opts: CraftOptions = {
    drive,
    signingKey: signer.signingKey,
    recipients,
    secret,
    chunks: [...chunks],
    ...(packCount !== undefined ? { packCount } : {}),
    ...(manifestFormat !== undefined ? { manifestFormat } : {}),
    ...(manifestVersion !== undefined ? { manifestVersion } : {}),
    packHeader: (i, id) => {
      const h = headers.get(i);
      return packHeaderFrame(String(h?.shipment ?? id), Number(h?.pack ?? i));
    },
    manifest: (layout) => {
      const out = manifestLines(manifest, layout);
      expected = out.expected;
      const nl = Buffer.from('\n');
      const last = out.lines.length - 1;
      return Buffer.concat(out.lines.flatMap((t, k) => [Buffer.from(t), ...(k < last || finalNewline ? [nl] : [])]));
    },
    ...(windowLog !== undefined ? { manifestFrames: (text: Buffer) => lyingFrame(text, undefined, windowLog) } : {}),
    ...(windowLog === undefined && body.includes('{{rle ') ? { manifestFrames: (text: Buffer) => rleFrames(text) ?? text } : {}),
  };
  const needsTwin = after.some((l) => l.cmd === 'swap-pack');
  const twin = needsTwin ? await craftShipment({ ...opts, drive: scratch }) : null;
  const shipment = await craftShipment({
    ...opts,
    ...(Object.keys(bagInfo).length > 0 ? { bagInfo } : {}),
    beforeSeal: async (dir) => {
      for (const l of before) await mutate(l, dir, parties, twin);
    },
  });
  for (const l of after) await mutate(l, shipment.dir, parties, twin);
  return { shipment, expected, modes };
}

function setFrame(c: CraftChunk, l: RecipeLine): void {
  switch (word(l, 1)) {
    case 'bomb':
      c.frame = bombFrame(int(l, 2));
      break;
    case 'declare':
      c.frame = lyingFrame(c.data, word(l, 2) === 'none' ? undefined : int(l, 2));
      break;
    case 'raw':
      c.frame = zframe.rawFrame(c.data);
      break;
    case 'append':
      c.frame = Buffer.concat([zframe.rawFrame(c.data), content(l, 2, `${word(l, 0)}/tail`)]);
      break;
    case 'skippable':
      c.frame = zframe.skippableFrame(0, c.data);
      break;
    default:
      throw new Error(`recipe line ${l.n}: unknown frame kind ${word(l, 1)}`);
  }
}
