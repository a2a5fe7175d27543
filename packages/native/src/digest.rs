//! Keyless fixity at the speed of the disk: a payload file's SHA-256 read
//! and hashed on a thread of its own, so the files of a drive are hashed
//! side by side (the engine runs one per core) instead of one after another
//! on the JavaScript thread.

use crate::error::{BpError, BpResult};
use crate::promise::promise;
use napi::{Env, JsObject};
use napi_derive::napi;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::FromRawFd;

/// Small enough that a block read is still in the core's cache when it is hashed.
const BLOCK: usize = 256 << 10;
/// Bytes asked of the disk ahead of the block being hashed.
const AHEAD: u64 = 8 << 20;

/// A file's SHA-256 and the bytes it read.
#[napi(object)]
pub struct FileDigest {
    pub sha256: String,
    pub bytes: f64,
}

fn digest(file: &File, limit: u64) -> BpResult<FileDigest> {
    // SAFETY: advice only; an error is harmless.
    unsafe { libc::posix_fadvise(std::os::unix::io::AsRawFd::as_raw_fd(file), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
    let fd = std::os::unix::io::AsRawFd::as_raw_fd(file);
    let mut h = Sha256::new();
    let mut buf = vec![0u8; BLOCK];
    let mut pos = 0u64;
    // SAFETY: advice only; an error is harmless.
    unsafe { libc::posix_fadvise(fd, 0, AHEAD.min(limit) as libc::off_t, libc::POSIX_FADV_WILLNEED) };
    while pos < limit {
        let want = ((limit - pos) as usize).min(BLOCK);
        // The disk reads the next blocks while this one is hashed, so a cold
        // file is read and hashed at once rather than by turns.
        // SAFETY: advice only; an error is harmless.
        unsafe { libc::posix_fadvise(fd, (pos + AHEAD) as libc::off_t, want as libc::off_t, libc::POSIX_FADV_WILLNEED) };
        let n = match file.read_at(&mut buf[..want], pos) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(BpError::io(&e, "cannot read payload file")),
        };
        h.update(&buf[..n]);
        pos += n as u64;
    }
    Ok(FileDigest { sha256: h.finalize().iter().map(|b| format!("{b:02x}")).collect(), bytes: pos as f64 })
}

/// The SHA-256 of the open file `fd` (duplicated here; the caller closes
/// its own), reading at most `limit` bytes from its start.
#[napi(ts_return_type = "Promise<FileDigest>")]
pub fn hash_file(env: Env, fd: i32, limit: f64) -> napi::Result<JsObject> {
    crate::init();
    let (settle, p) = promise::<FileDigest>(&env)?;
    // SAFETY: dup returns a new descriptor that this File owns alone.
    let dup = unsafe { libc::dup(fd) };
    if dup < 0 {
        settle.settle(Err(BpError::io(&std::io::Error::last_os_error(), "cannot duplicate a payload file's descriptor")));
        return Ok(p);
    }
    let file = unsafe { File::from_raw_fd(dup) };
    std::thread::Builder::new()
        .name("brickpost-hash".into())
        .stack_size(256 * 1024)
        .spawn(move || settle.settle(digest(&file, limit as u64)))
        .map_err(|e| napi::Error::from(BpError::io(&e, "cannot start a hashing thread")))?;
    Ok(p)
}
