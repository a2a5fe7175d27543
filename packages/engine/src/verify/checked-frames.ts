/** Slots of the table: a power of two, twice the frames it holds. */
const SLOTS = 1 << 18;
/** Frames held before the table starts afresh (load factor one half). */
const HOLD = SLOTS >>> 1;
/** 32-bit words per slot: key (pack + 1, top bit set for a delta frame; 0: empty), offset, frame length, length, the id (32 bytes). */
const WORDS = 12;

/**
 * The chunk frames a deep verify has already decoded and checked, so that
 * a frame many refs point at (deduplication, or a hostile manifest naming
 * one chunk a million times) is decoded once. A frame is its pack and
 * plaintext offset; a ref counts as checked when its frame length, length
 * and id equal those of the ref that was checked there,
 * since the same bytes decode the same way. Memory is fixed (12 MiB): past
 * 131072 frames the table starts afresh, and a frame seen before is then
 * decoded again, which costs time, never a check.
 */
export class CheckedFrames {
  private readonly slots = new Uint32Array(SLOTS * WORDS);
  private held = 0;

  /**
   * Whether the frame at (`pack`, `offset`) was checked as this ref would
   * be (`id` null: a delta frame, decoded to `length` without an id check);
   * when not, it is recorded as checked (the caller decodes it now, and a
   * failure ends the walk).
   */
  seen(pack: number, offset: number, frameLength: number, length: number, id: string | null): boolean {
    const mask = SLOTS - 1;
    const key = ((pack + 1) | (id === null ? 0x80000000 : 0)) >>> 0;
    let i = (Math.imul(key, 0x9e3779b1) ^ Math.imul(offset, 0x85ebca77)) & mask;
    const want = idWords(id);
    for (;;) {
      const at = i * WORDS;
      const s = this.slots;
      if (s[at] === 0) break;
      if (s[at] === key && s[at + 1] === offset) {
        if (s[at + 2] === frameLength && s[at + 3] === length && want.every((w, k) => s[at + 4 + k] === w)) return true;
        // Another reading of the same frame: this one is checked too, and remembered in its place.
        this.put(at, key, offset, frameLength, length, want);
        return false;
      }
      i = (i + 1) & mask;
    }
    if (this.held >= HOLD) {
      this.slots.fill(0);
      this.held = 0;
      return this.seen(pack, offset, frameLength, length, id);
    }
    this.held++;
    this.put(i * WORDS, key, offset, frameLength, length, want);
    return false;
  }

  private put(at: number, key: number, offset: number, frameLength: number, length: number, id: readonly number[]): void {
    const s = this.slots;
    s[at] = key;
    s[at + 1] = offset;
    s[at + 2] = frameLength;
    s[at + 3] = length;
    for (let k = 0; k < 8; k++) s[at + 4 + k] = id[k]!;
  }
}

/** A hex id as eight words (zeros for a delta frame, which has no id check and its own key). */
function idWords(id: string | null): number[] {
  const out = new Array<number>(8).fill(0);
  if (id !== null) for (let k = 0; k < 8; k++) out[k] = parseInt(id.slice(8 * k, 8 * k + 8), 16) >>> 0;
  return out;
}
