import { BrickpostError, frame } from '@brickpost/manifest';

/** Magic nibble of the skippable frame that opens every pack and manifest plaintext. */
export const HEADER_FRAME_NIBBLE = 0x0b;

/** The skippable frame that opens a brickpost stream of `format` (`FORMAT\n`); `zstd -d` skips it. */
export function headerFrame(format: string): Buffer {
  return frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(`${format}\n`, 'utf8'));
}

/** Largest header frame a reader accepts. */
const MAX_HEADER = 4096;

/**
 * Takes off the skippable frame that opens a brickpost stream (`FORMAT\n`:
 * a manifest's plaintext, a signature file), checking it names `format`
 * (or one of the formats given), as the stream's pieces arrive; what
 * follows it goes on to the decoder. `seen` is the format it named.
 */
export class HeaderFrame {
  private head: Buffer | null = Buffer.alloc(0);
  private readonly formats: readonly string[];
  seen: string | null = null;

  constructor(
    format: string | readonly string[],
    private readonly where: string,
  ) {
    this.formats = typeof format === 'string' ? [format] : format;
  }

  /**
   * The bytes of `piece` after the header frame: empty while the frame is
   * not whole yet, the piece itself once the frame has been taken off.
   * @throws BrickpostError MALFORMED (no header frame), UNSUPPORTED_VERSION (another format)
   */
  take(piece: Buffer): Buffer {
    if (this.head === null) return piece;
    const head = Buffer.concat([this.head, piece]);
    this.head = head;
    if (head.length < 8) return Buffer.alloc(0);
    const need = 8 + head.readUInt32LE(4);
    if ((head.readUInt32LE(0) & 0xfffffff0) >>> 0 !== 0x184d2a50 || need > MAX_HEADER) {
      throw new BrickpostError('MALFORMED', `${this.where} does not open with a brickpost header frame`);
    }
    if (head.length < need) return Buffer.alloc(0);
    const f = frame.readSkippableFrame(head);
    const named = f.payload.toString('utf8');
    const format = this.formats.find((x) => named === `${x}\n`);
    if (f.magicNibble !== HEADER_FRAME_NIBBLE || format === undefined) {
      throw new BrickpostError('UNSUPPORTED_VERSION', `${this.where} is not ${this.formats.join(' or ')}`, { hint: 'it may be from a newer brickpost' });
    }
    this.seen = format;
    this.head = null;
    return head.subarray(f.length);
  }

  /** @throws BrickpostError TRUNCATED when the stream ended inside the header frame */
  end(): void {
    if (this.head !== null) throw new BrickpostError('TRUNCATED', `${this.where} ends inside its header frame`);
  }
}
