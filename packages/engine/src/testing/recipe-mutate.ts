import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { age, MANIFEST_PATH, packPath } from '@brickpost/manifest';
import { SIGNATURE_FILE } from '../drive/layout.js';
import type { CraftedShipment } from './craft.js';
import type { PartyKeys } from './keys.js';
import { appendBytes, deleteFile, flipByte, payloadStart, replacePack, swapStreamChunks, tamperAgeMac, truncateFile } from './mutate.js';
import { content, int, word, type RecipeLine } from './recipe-parse.js';
import { corruptSignature, resealTags, resign } from './reseal.js';

/** The recipe commands that change a drive once its shipment is written. */
export const MUTATIONS = new Set([
  'flip',
  'truncate',
  'delete',
  'append',
  'write',
  'tamper-mac',
  'armor',
  'corrupt-signature',
  'resign',
  'reseal',
  'swap-pack',
  'swap-stream',
]);

/** The two parties of a vector: `self` runs the command (publisher and receiver), `stranger` is neither trusted nor a recipient. */
export interface Parties {
  self: PartyKeys;
  stranger: PartyKeys;
}

/** A party named in a recipe line; throws Error for another name. */
export function party(parties: Parties, name: string, l: RecipeLine): PartyKeys {
  if (name !== 'self' && name !== 'stranger') throw new Error(`recipe line ${l.n}: party must be self or stranger`);
  return parties[name];
}

/** A bag file named in a recipe: `manifest`, `signature`, `pack:N`, or a bag-relative path. */
function bagFile(dir: string, name: string): string {
  if (name === 'manifest') return join(dir, MANIFEST_PATH);
  if (name === 'signature') return join(dir, SIGNATURE_FILE);
  if (name.startsWith('pack:')) return join(dir, packPath(Number(name.slice(5))));
  return join(dir, name);
}

/** Word 2 of a flip or truncate: an integer, or `payload+N` (N bytes into an age file's payload). */
async function offset(l: RecipeLine, file: string): Promise<number> {
  const o = word(l, 1);
  return o.startsWith('payload+') ? (await payloadStart(file)) + Number(o.slice(8)) : int(l, 1);
}

/**
 * Applies one mutation line to the bag `dir`; `twin` is the other shipment
 * swap-pack takes packs from. Throws Error on an unknown mutation.
 */
export async function mutate(l: RecipeLine, dir: string, parties: Parties, twin: CraftedShipment | null): Promise<void> {
  const file = (): string => bagFile(dir, word(l, 0));
  switch (l.cmd) {
    case 'flip':
      await flipByte(file(), await offset(l, file()), l.words[2] ? int(l, 2) : 1);
      break;
    case 'truncate':
      await truncateFile(file(), await offset(l, file()));
      break;
    case 'delete':
      await deleteFile(file());
      break;
    case 'append':
      await appendBytes(file(), content(l, 1, `${word(l, 0)}/append`));
      break;
    case 'write':
      await mkdir(dirname(file()), { recursive: true });
      await writeFile(file(), content(l, 1, `${word(l, 0)}/write`));
      break;
    case 'tamper-mac':
      await tamperAgeMac(file());
      break;
    case 'armor':
      await writeFile(file(), age.encodeArmor(await readFile(file())));
      break;
    case 'corrupt-signature':
      await corruptSignature(dir);
      break;
    case 'resign':
      await resign(dir, party(parties, word(l, 0), l).signingKey, l.words[1]?.text === 'comment' ? word(l, 2) : undefined);
      break;
    case 'reseal':
      await resealTags(dir, party(parties, word(l, 0), l).signingKey);
      break;
    case 'swap-pack':
      await replacePack(dir, int(l, 0), twin!.dir);
      break;
    case 'swap-stream':
      await swapStreamChunks(file(), int(l, 1), int(l, 2));
      break;
    default:
      throw new Error(`recipe line ${l.n}: unknown mutation ${l.cmd}`);
  }
}
