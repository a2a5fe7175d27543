import { loadNative, nativeErrorParts, type NativeBinding } from '@brickpost/native';
import { BrickpostError, ERROR_CODES, type ErrorCode } from '@brickpost/manifest/errors';
import { zstd } from './zstd.js';
import { isSystemError, toEnvironmentError } from './errors.js';

let chosen: NativeBinding | null | undefined;

/**
 * The native core (packages/native) when it is built and loads, else null:
 * the engine then runs its TypeScript reference, which writes the same
 * format. BRICKPOST_NATIVE=0 chooses the TypeScript path on purpose;
 * otherwise a missing core is said once on stderr. The core must bundle
 * the libzstd that zstd-napi bundles, so both paths write the same frames.
 */
export function native(): NativeBinding | null {
  if (chosen !== undefined) return chosen;
  const { binding, reason, disabled } = loadNative();
  let why = reason;
  if (binding && binding.zstdVersion() !== zstd.versionNumber()) {
    why = `its libzstd ${binding.zstdVersion()} is not zstd-napi's ${zstd.versionNumber()}`;
  }
  chosen = why === null ? binding : null;
  if (chosen === null && !disabled) {
    process.stderr.write(`brickpost: warning: native core unavailable (${why}); using the JavaScript path, which is slower\n`);
  }
  return chosen;
}

/**
 * A native core's error as a BrickpostError: its own code, or for a file
 * system error (ERRNO:<name>) what `fileError` (default toEnvironmentError)
 * makes of an errno error.
 * Errors that did not come from the core become IO.
 */
export function fromNative(e: unknown, fileError?: (errno: NodeJS.ErrnoException) => BrickpostError): BrickpostError {
  if (e instanceof BrickpostError) return e;
  // A system error raised on the JavaScript side of a native call is worded like the core's.
  if (isSystemError(e)) return fileError ? fileError(e) : toEnvironmentError(e, '');
  const { code, message, hint } = nativeErrorParts(e);
  const opts = { cause: e, ...(hint ? { hint } : {}) };
  if (code?.startsWith('ERRNO:')) {
    const errno: NodeJS.ErrnoException = Object.assign(new Error(message), { code: code.slice(6) });
    if (fileError) return fileError(errno);
    const what = message.split(': ')[0]!;
    return toEnvironmentError(errno, what);
  }
  if (code !== null && code in ERROR_CODES) return new BrickpostError(code as ErrorCode, message, opts);
  return new BrickpostError('IO', `native core failed: ${message}`, opts);
}
