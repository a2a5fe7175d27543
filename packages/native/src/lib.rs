//! brickpost's native data path, loaded by the engine through
//! packages/native/index.js. The TypeScript implementation is the format's
//! reference; every function here produces the same bytes (cuts, ids,
//! frames, signatures, ciphertext layout) and raises the same error codes.
//!
//! Threads: a CPU pool (rayon) with one thread per core does the per-byte
//! work; each object with sequential state (a large file, a pack being
//! sealed, a pack being read) has a thread of its own for its order and its
//! blocking I/O. Promises are settled from those threads.

mod aead;
mod ahead;
mod basis;
mod bytes;
mod chunker;
mod codec;
mod cut;
mod delta;
mod digest;
mod error;
mod promise;
mod reader;
mod recycle;
mod rows;
mod seal;
mod serial;
mod sig;
mod stage;

use napi::bindgen_prelude::Buffer;
use napi::{Env, JsObject};
use napi_derive::napi;
use std::sync::Once;

/// Process-wide settings, once: large buffers (chunk batches, frames,
/// sealed blocks) are mapped and unmapped on their own rather than kept
/// in glibc's heaps after use, so the resident set follows what is in
/// flight instead of the largest it ever was.
pub(crate) fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // A job that panics rejects its promise (promise.rs); the pool itself goes on.
        let _ = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("brickpost-cpu-{i}")).panic_handler(|_| {}).build_global();
        #[cfg(target_env = "gnu")]
        // SAFETY: mallopt only changes the allocator's tuning.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
        }
    });
}

/// The bundled libzstd's version number (10507 for 1.5.7).
#[napi]
pub fn zstd_version() -> u32 {
    zstd_safe::version_number()
}

/// What seals and opens age's STREAM chunks: "openssl" (the process's) or "rustcrypto".
#[napi]
pub fn aead() -> &'static str {
    crate::aead::backend()
}

/// Threads in the CPU pool.
#[napi]
pub fn threads() -> u32 {
    init();
    rayon::current_num_threads() as u32
}

/// findCut of cut.ts over `data[start, end)`: the chunk's length, or -1 when more data is needed.
#[napi]
pub fn find_cut(data: Buffer, start: u32, end: u32, eof: bool) -> i64 {
    match cut::find_cut(&data[start as usize..end as usize], eof) {
        Some(n) => n as i64,
        None => -1,
    }
}

/// One Zstandard frame of `data` at `level`, its content size in the
/// header (as zstd-napi's Compressor with contentSizeFlag writes it),
/// compressed on the CPU pool: the blocks of manifest and signature-file
/// lines (io/line-blocks.ts), which the JavaScript thread would otherwise
/// compress itself.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn compress_frame(env: Env, data: Buffer, level: i32) -> napi::Result<JsObject> {
    init();
    let (settle, p) = promise::promise::<Buffer>(&env)?;
    rayon::spawn(move || {
        let frame = codec::compress_frame(&data, level);
        settle.settle_keeping(Ok(frame.into()), data);
    });
    Ok(p)
}

/// The bpsig1 signature of `data` in blocks of `block` bytes.
#[napi]
pub fn signature(data: Buffer, block: u32) -> Buffer {
    let mut s = sig::SignatureBuilder::new(block as usize);
    s.update(&data);
    s.finish().into()
}
