import { hasEscapes, toBytes } from '@brickpost/manifest';

/**
 * A path as Node's fs calls take it: the string itself, or, when it holds
 * escaped bytes (a name that is not UTF-8, `@brickpost/manifest` bytes.ts),
 * its raw bytes as a Buffer, so the system sees the name byte for byte.
 * Every fs call on a path that came from a source tree or a manifest goes
 * through this.
 */
export function fsPath(p: string): string | Buffer {
  return hasEscapes(p) ? toBytes(p) : p;
}
