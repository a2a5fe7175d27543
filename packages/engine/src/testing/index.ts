/**
 * Testing: writers of deliberately wrong shipments, for tests only.
 *
 * - crafted shipment: a complete, signed and encrypted bag written by
 *   craftShipment from caller-supplied manifest lines and chunks, with the
 *   engine's own building blocks but none of its checks, so a test can put
 *   any hostile manifest, lying frame or foreign pack on a drive.
 * - mutation: damage or tampering applied to a drive afterwards (a flipped
 *   byte, a cut or missing file, a signature by another key).
 * - party: the keys of one home (signing key, age recipient and identity).
 * - vector: one testkit scenario (testkit/README.md): a `key: value` header
 *   with the expected error code and exit code, and a recipe body that
 *   buildVector turns into a drive.
 */
export { craftShipment } from './craft.js';
export type { CraftChunk, CraftLayout, CraftOptions, CraftedShipment } from './craft.js';
export { ageEncrypt, ageLayout } from './age-file.js';
export { bombFrame, handmadeFrame, lyingFrame } from './frames.js';
export type { FrameBlock } from './frames.js';
export { newParty, partyKeys } from './keys.js';
export type { PartyKeys } from './keys.js';
export { appendBytes, deleteFile, flipByte, payloadStart, replacePack, tamperAgeMac, truncateFile } from './mutate.js';
export { corruptSignature, currentComment, editBagInfo, resealTags, resign } from './reseal.js';
export { buildVector } from './recipe.js';
export type { BuiltVector } from './recipe.js';
export type { ExpectedEntry } from './recipe-manifest.js';
export type { Parties } from './recipe-mutate.js';
export { parseRecipe, pseudoRandom } from './recipe-parse.js';
export type { RecipeLine, Word } from './recipe-parse.js';
export { loadVectors, parseVector, VECTOR_COMMANDS } from './vector.js';
export type { Vector, VectorCommand } from './vector.js';
export { packHeaderFrame } from '../pack/pack-writer.js';
