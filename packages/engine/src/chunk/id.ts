import { createHmac, hkdfSync } from 'node:crypto';
import { BrickpostError } from '@brickpost/manifest/errors';

const CHUNK_KEY_INFO = 'brickpost chunk id v1';

/**
 * Derives the chunk-id key of a dataset: HKDF-SHA256 (RFC 5869) with
 * ikm = datasetSecret, an empty salt, info = "brickpost chunk id v1", 32 bytes.
 *
 * Throws BAD_KEY when the secret is shorter than 16 bytes.
 */
export function chunkKey(datasetSecret: Uint8Array): Buffer {
  if (datasetSecret.length < 16) {
    throw new BrickpostError('BAD_KEY', `dataset secret of ${datasetSecret.length} bytes is too short for a chunk key`);
  }
  return Buffer.from(hkdfSync('sha256', datasetSecret, Buffer.alloc(0), CHUNK_KEY_INFO, 32));
}

/**
 * The id of a chunk: HMAC-SHA256(key, raw bytes), 32 bytes. Keyed, so ids
 * reveal nothing about content to anyone without the dataset secret.
 */
export function chunkId(key: Uint8Array, raw: Uint8Array): Buffer {
  return createHmac('sha256', key).update(raw).digest();
}
