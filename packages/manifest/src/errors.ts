/**
 * Errors. Every failure brickpost reports is a BrickpostError with a stable
 * `code`; callers branch on `code`, never on the message. Each code belongs to
 * one category, and each category has one process exit code (see EXIT_CODES).
 *
 * This module has no Node imports so the desktop renderer can load it.
 */

/** Exit codes of the `brickpost` command, one per category. */
export const EXIT_CODES = {
  ok: 0,
  integrity: 1,
  usage: 2,
  authenticity: 3,
  unsafe: 4,
  environment: 5,
  chain: 6,
  busy: 7,
  incomplete: 8,
  lagging: 9,
  interrupted: 130,
} as const;

export type Category = Exclude<keyof typeof EXIT_CODES, 'ok'>;

/** Every error code and the category it belongs to. */
export const ERROR_CODES = {
  // usage: the command line or the local setup is wrong
  USAGE: 'usage',
  NOT_FOUND: 'usage',
  NO_IDENTITY: 'usage',
  IDENTITY_EXISTS: 'usage',
  NOT_A_DRIVE: 'usage',
  AMBIGUOUS_SHIPMENT: 'usage',
  BAD_KEY: 'usage',
  // integrity: data on a drive is missing, truncated or corrupt
  MALFORMED: 'integrity',
  TRUNCATED: 'integrity',
  FIXITY_MISMATCH: 'integrity',
  FILE_MISSING: 'integrity',
  UNEXPECTED_FILE: 'integrity',
  CHUNK_MISMATCH: 'integrity',
  PAYLOAD_CORRUPT: 'integrity',
  UNSUPPORTED_VERSION: 'integrity',
  SET_MISMATCH: 'integrity',
  // authenticity: the data is not what the publisher signed, or not for us
  SIGNATURE_INVALID: 'authenticity',
  UNSIGNED: 'authenticity',
  UNTRUSTED_PUBLISHER: 'authenticity',
  NO_MATCHING_KEY: 'authenticity',
  HEADER_MAC_MISMATCH: 'authenticity',
  // unsafe: the drive asks for something brickpost refuses to do
  UNSAFE_PATH: 'unsafe',
  UNSAFE_ENTRY: 'unsafe',
  LIMIT_EXCEEDED: 'unsafe',
  // environment: the local machine is in the way
  NO_SPACE: 'environment',
  PERMISSION: 'environment',
  /** The file system is mounted read-only (EROFS), or the drive is write-protected. */
  READ_ONLY: 'environment',
  IO: 'environment',
  DEPENDENCY: 'environment',
  /** pack --strict: part of the source could not be shipped (unreadable, vanished). */
  SOURCE_INCOMPLETE: 'environment',
  /** pack: a source file kept changing while it was read (re-read up to 3 times), without --allow-changing. */
  SOURCE_CHANGING: 'environment',
  /** The destination's file system cannot hold names the shipment carries apart (case or normalisation collisions). */
  NAME_COLLISION: 'environment',
  /** A file at the catalog's or a destination journal's path is not that brickpost database (another program's, or not SQLite). */
  FOREIGN_DATABASE: 'environment',
  /** The catalog or a destination journal is damaged (SQLite reports it corrupt or not a database). */
  DATABASE_DAMAGED: 'environment',
  // chain: the shipment does not apply to this destination
  CHAIN_REPLAY: 'chain',
  CHAIN_GAP: 'chain',
  CHAIN_FORK: 'chain',
  BASIS_MISSING: 'chain',
  DATASET_MISMATCH: 'chain',
  EXPIRED: 'chain',
  // busy
  LOCKED: 'busy',
  /** The destination holds an interrupted ingest or rollback that this command cannot finish (`brickpost resume DEST` does). */
  UNFINISHED: 'busy',
  // incomplete: more drives of a drive set are needed
  SET_INCOMPLETE: 'incomplete',
  // lagging: a subscriber is further behind than the limit given (brickpost subscribers --max-lag)
  SUBSCRIBER_LAGGING: 'lagging',
  // interrupted
  CANCELLED: 'interrupted',
} as const satisfies Record<string, Category>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface BrickpostErrorOptions {
  /** What the user can do about it, one sentence. */
  hint?: string | undefined;
  /** The file, drive path or entry the error is about. */
  path?: string | undefined;
  /** The values the user may choose from (AMBIGUOUS_SHIPMENT: shipment ids, oldest first), so a front end can say how to pick one. */
  choices?: readonly string[];
  cause?: unknown;
}

/**
 * The one error type. `message` is lowercase, names what failed and where,
 * and quotes the offending value (use `quote`).
 */
export class BrickpostError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly path: string | undefined;
  readonly choices: readonly string[] | undefined;

  constructor(code: ErrorCode, message: string, options: BrickpostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BrickpostError';
    this.code = code;
    this.hint = options.hint;
    this.path = options.path;
    this.choices = options.choices;
  }

  get category(): Category {
    return ERROR_CODES[this.code];
  }

  get exitCode(): number {
    return EXIT_CODES[this.category];
  }
}

/** True when `e` is a BrickpostError, optionally with the given code. */
export function isBrickpostError(e: unknown, code?: ErrorCode): e is BrickpostError {
  return e instanceof BrickpostError && (code === undefined || e.code === code);
}

/**
 * Quotes a value taken from untrusted input for use in a message: JSON string
 * escaping, so control characters and lone surrogates are visible and a
 * crafted name cannot forge terminal output. A byte of a name that is not
 * UTF-8 (held as U+DC80–U+DCFF, records/bytes.ts) shows as `\xNN`. Long
 * values are shortened.
 */
export function quote(value: string, max = 200): string {
  const s = value.length > max ? value.slice(0, max) + '…' : value;
  return JSON.stringify(s)
    .replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    .replace(/(\\+)udc([89a-f][0-9a-f])/g, (m, slashes: string, byte: string) => (slashes.length % 2 === 1 ? `${slashes.slice(1)}\\x${byte}` : m));
}
