/** Bytes the native core holds; consumed once (sealed, written or released). */
export declare class NativeBytes {
  readonly length: number;
  /** A copy in a Buffer. */
  toBuffer(): Buffer;
  /** Copies them into the start of `into` (at least their length) and frees them; their length. */
  moveInto(into: Buffer): number;
  /** Frees them now. */
  release(): void;
  /** Writes them to open file `fd` at `position` and frees them. */
  writeTo(fd: number, position: number): void;
}

/** One encoded chunk. */
export interface NativeChunk {
  /** HMAC-SHA256(key, bytes). */
  id: Buffer;
  /** Exactly one Zstandard frame, held natively until sealed. */
  frame: NativeBytes;
  /** True when compressed, false for raw blocks. */
  zstd: boolean;
  length: number;
  sha?: Buffer | null;
  raw?: Buffer | null;
  /** Its id was among the `known` ones asked for: `frame` is empty, and `raw` absent. */
  known: boolean;
}

/** The chunks of a small file read whole. */
export interface NativeFileResult {
  chunks: NativeChunk[];
  changed?: string | null;
  signature?: Buffer | null;
}

/** The next chunks of a large file. */
export interface NativeBatch {
  chunks: NativeChunk[];
  done: boolean;
  changed?: string | null;
  signature?: Buffer | null;
}

/** A large file being cut and encoded batch by batch, in file order. */
export declare class LargeFile {
  next(): Promise<NativeBatch>;
  close(): void;
}

/** Cuts, names and compresses with one chunk key and zstd level (on the CPU pool). */
export declare class Chunker {
  constructor(key: Buffer, level: number);
  /** A chunk whose id is in `known` (32-byte ids, one after another) gets an empty frame and no bytes, and `known` set. */
  encodeFile(path: Buffer, size: number, sha: boolean, signature: number, raw: boolean, known?: Buffer | null): Promise<NativeFileResult>;
  /**
   * Small files read and encoded as encodeFile does with no signature, no bytes kept and no known ids, on the CPU pool under
   * one promise. `paths`: each name's bytes followed by a NUL byte; `sizes`: each file's listed size. Each answer is the
   * file's chunks, or the message of the error encodeFile would have rejected with (nativeErrorParts reads it).
   */
  encodeFiles(paths: Buffer, sizes: number[], sha: boolean): Promise<Array<NativeFileResult | string>>;
  encode(raw: Buffer, sha: boolean): Promise<NativeChunk>;
  open(path: Buffer, size: number, sha: boolean, signature: number, raw: boolean, known?: Buffer | null): LargeFile;
}

/** Recovery rows of one window (acc[slot] ^= c · block in GF(2^8)), worked on a thread of their own in call order. */
export declare class RecoveryRows {
  constructor(count: number, size: number);
  /** Adds the blocks back to back in `data` (lengths[i] bytes each) into slots[i·r + j] with coefs[i·r + j]; resolves to their CRC-32s, little-endian. `data` must not change until then. */
  add(data: Buffer, lengths: Uint32Array, slots: Uint32Array, coefs: Uint8Array): Promise<Buffer>;
  /** The rows `slots` back to back, after every add before; with `clear` all rows are zero again. */
  take(slots: Uint32Array, clear: boolean): Promise<Buffer>;
}

/** A chunk coded as a delta: its frame (one Zstandard frame of bpdelta1 bytes) and the delta's length. */
export interface NativeDelta {
  frame: Buffer;
  deltaLength: number;
}

/** A basis file's bpsig1 signature, parsed once for the deltas of its next version's chunks. */
export declare class BasisSignature {
  /** Throws MALFORMED for bytes that are not a signature, LIMIT_EXCEEDED past `maxBlocks` (default 2^24) blocks. */
  constructor(sig: Buffer, maxBlocks?: number);
  /** Blocks the signature describes (0 once released). */
  readonly blockCount: number;
  /** Strong sums the deltas against it have computed so far: what a forged signature can cost. */
  readonly strongSums: number;
  /** deltaFrame of the engine, on the CPU pool; `raw` must not change until it resolves. */
  delta(raw: Buffer, level: number, limit: number): Promise<NativeDelta | null>;
  /** Frees the parsed signature now (deltas in flight finish first). */
  release(): void;
}

/** age STREAM encryption of one payload, and the SHA-256 of its file. */
export declare class PayloadSealer {
  constructor(payloadKey: Buffer, prefix: Buffer);
  /** Takes the NativeBytes given; Buffers must not change until it resolves. */
  seal(parts: Array<Buffer | NativeBytes>, last: boolean): Promise<Buffer>;
  /** As seal, into the front of `out` (left alone until it resolves); resolves to the ciphertext's length. */
  sealInto(parts: Array<Buffer | NativeBytes>, last: boolean, out: Buffer): Promise<number>;
  digest(): Promise<string>;
}

/** The plaintext size and SHA-256 of a pack read to its end. */
export interface PackEnd {
  plain: number;
  sha256: string;
}

/** One pack read front to back (hashed), decrypted and decoded. */
export declare class PackReader {
  constructor(fd: number, size: number, payloadStart: number, payloadKey: Buffer, chunkKey: Buffer);
  readPlain(offset: number, length: number): Promise<Buffer>;
  readChunks(
    offsets: number[],
    frameLengths: number[],
    lengths: number[],
    ids: Buffer,
    delta: boolean[],
    random: boolean,
    keep: boolean,
    maxChunk: number,
    maxDelta: number,
  ): Promise<Array<NativeBytes | null>>;
  finish(): Promise<PackEnd>;
  close(): void;
}

/** Where a file queued on a StageWriter failed. */
export interface StageFailure {
  /** 'create', 'write', 'finish' (or 'abort' after abort()). */
  step: string;
  /** The errno (positive; 0 after abort()). */
  errno: number;
  /** The call that failed: open, write, ftruncate, fchmod, futimens, fdatasync, close. */
  syscall: string;
  /** The manifest entry and the staged file. */
  entry: string;
  path: string;
}

/** Staged files created, written, finished and closed in order on a thread of their own. */
export declare class StageWriter {
  /** `tree`: the staging tree, below which a file's missing folders are made (mode 0700) as it is written. */
  constructor(tree?: string | null);
  /** Queues a whole file (takes the NativeBytes, copies the Buffers); waits while much is queued; the first failure so far, or null. */
  file(path: string, entry: string, parts: Array<Buffer | NativeBytes>, offsets: number[], size: number, mode: number, mtimeNs: string, sync: boolean): StageFailure | null;
  /**
   * Queues `data` (takes the NativeBytes, copies a Buffer) to be written at `offset` of the open file `fd` (the staged
   * file `path` of manifest entry `entry`), which stays the caller's until handed to finish(); `writeback` >= 0 then
   * starts writing the file to the disk from that offset. Waits while much is queued; the first failure so far, or null.
   */
  write(fd: number, path: string, entry: string, offset: number, data: Buffer | NativeBytes, writeback: number): StageFailure | null;
  /**
   * Queues the end of a file written through write(): `fd` is the writer's from here on, closed in any case; the file
   * gets its length `size` (its last write ended at `dataEnd`), `mode` and times, and is synced when `sync`, else
   * written to the disk from `writeback` on (>= 0). Never waits; the first failure so far, or null.
   */
  finish(fd: number, path: string, entry: string, size: number, dataEnd: number, mode: number, mtimeNs: string, sync: boolean, writeback: number): StageFailure | null;
  /** Whether more than half the queue's bytes wait (await room() rather than queue more and block in file()). */
  readonly busy: boolean;
  /** Resolves once at most half the queue's bytes wait, or the queue stopped on a failure (which the next call reports). */
  room(): Promise<void>;
  /** Once every file queued so far is done: the first failure, or null. */
  flush(): Promise<StageFailure | null>;
  /** Drops the files not started and waits for the one being written. */
  abort(): void;
}

/** A file's SHA-256 (hex) and the bytes read. */
export interface FileDigest {
  sha256: string;
  bytes: number;
}

/** The binding's module. */
export interface NativeBinding {
  /** SHA-256 of the open file `fd` (at most `limit` bytes), on a thread of its own. */
  hashFile(fd: number, limit: number): Promise<FileDigest>;
  zstdVersion(): number;
  /** What seals and opens age's STREAM chunks: the OpenSSL Node carries, or RustCrypto (where it is missing, or BRICKPOST_AEAD=rust). */
  aead(): 'openssl' | 'rustcrypto';
  threads(): number;
  findCut(data: Buffer, start: number, end: number, eof: boolean): number;
  signature(data: Buffer, block: number): Buffer;
  /** One zstd frame of `data` at `level` (content size in its header), compressed on the CPU pool. */
  compressFrame(data: Buffer, level: number): Promise<Buffer>;
  Chunker: typeof Chunker;
  BasisSignature: typeof BasisSignature;
  PayloadSealer: typeof PayloadSealer;
  PackReader: typeof PackReader;
  RecoveryRows: typeof RecoveryRows;
  StageWriter: typeof StageWriter;
}

/** The native binding, or null and why. */
export declare function loadNative(): { binding: NativeBinding | null; reason: string | null; disabled: boolean };

/** A native error's code (a BrickpostError code, or ERRNO:<name>), message, hint and, for a failure at one item of a batch, its index; code null if not native. */
export declare function nativeErrorParts(e: unknown): { code: string | null; message: string; hint: string; at: number | null };
