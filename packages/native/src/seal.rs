//! Pack encryption (age spec §payload; the manifest's age/encryptor.ts is
//! the reference): plaintext in 64 KiB STREAM chunks sealed with
//! ChaCha20-Poly1305 under the payload key, nonce = 11-byte big-endian
//! counter ‖ last-chunk flag, and the SHA-256 of the whole file (header
//! first) as its bytes go by. A batch is sealed and hashed chunk by chunk
//! on the sealer's own thread.

use crate::error::{BpError, BpResult};
use crate::promise::promise;
use crate::serial::Serial;
use crate::aead::Cipher;
use crate::bytes::NativeBytes;
use napi::bindgen_prelude::{Buffer, ClassInstance, Either};
use napi::{Env, JsObject};
use napi_derive::napi;
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};

pub const STREAM: usize = 65536;
pub const TAG: usize = 16;
pub const SEALED: usize = STREAM + TAG;

/// The nonce of STREAM chunk `index`.
pub fn chunk_nonce(index: u64, last: bool) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[3..11].copy_from_slice(&index.to_be_bytes());
    n[11] = u8::from(last);
    n
}

pub fn payload_cipher(key: &[u8]) -> BpResult<Cipher> {
    let Ok(key) = <&[u8; 32]>::try_from(key) else {
        return Err(BpError::new("USAGE", format!("payload key of {} bytes, want 32", key.len())));
    };
    Ok(Cipher::new(key))
}

struct SealState {
    cipher: Cipher,
    index: u64,
    /// Plaintext not yet sealed: at most one chunk, held until more data or the end shows whether it is the last.
    pending: Vec<u8>,
    hash: Option<Sha256>,
    finished: bool,
}

impl SealState {
    /// Chunks sealed by a call with `total` bytes (pending included): all full
    /// ones known not to be last, and with `last` the final one.
    fn plan(total: usize, last: bool) -> (usize, usize) {
        let full = if last { total / STREAM } else { total.saturating_sub(1) / STREAM };
        let count = if last && (total % STREAM != 0 || total == 0) { full + 1 } else { full };
        let sealed_plain = if last { total } else { full * STREAM };
        (count, sealed_plain)
    }

    /// Seals what `parts` complete into a new buffer.
    fn seal(&mut self, parts: &[&[u8]], last: bool) -> BpResult<Vec<u8>> {
        let total = self.pending.len() + parts.iter().map(|p| p.len()).sum::<usize>();
        let (count, sealed_plain) = Self::plan(total, last);
        let mut out = vec![0u8; sealed_plain + count * TAG];
        self.seal_to(parts, last, &mut out)?;
        Ok(out)
    }

    /// Seals what `parts` complete (everything, with `last`) into the front
    /// of `dst`; returns the ciphertext's length.
    fn seal_to(&mut self, parts: &[&[u8]], last: bool, dst: &mut [u8]) -> BpResult<usize> {
        if self.finished {
            return Err(BpError::new("USAGE", "age payload encryptor used after final"));
        }
        let total = self.pending.len() + parts.iter().map(|p| p.len()).sum::<usize>();
        let (count, sealed_plain) = Self::plan(total, last);
        let len = sealed_plain + count * TAG;
        if len > dst.len() {
            return Err(BpError::new("USAGE", format!("sealed batch of {len} bytes does not fit a buffer of {}", dst.len())));
        }
        let out = &mut dst[..len];
        // Lay the plaintext out with a gap for each tag.
        let mut at = 0usize;
        let put = |src: &[u8], out: &mut [u8], at: &mut usize| -> usize {
            let mut used = 0;
            while used < src.len() && *at < sealed_plain {
                let within = *at % STREAM;
                let n = (STREAM - within).min(src.len() - used).min(sealed_plain - *at);
                let d = (*at / STREAM) * SEALED + within;
                out[d..d + n].copy_from_slice(&src[used..used + n]);
                used += n;
                *at += n;
            }
            used
        };
        let pending = std::mem::take(&mut self.pending);
        let mut rest: Vec<&[u8]> = Vec::new();
        let u = put(&pending, out, &mut at);
        if u < pending.len() {
            rest.push(&pending[u..]);
        }
        for p in parts {
            let u = put(p, out, &mut at);
            if u < p.len() {
                rest.push(&p[u..]);
            }
        }
        let mut next = Vec::with_capacity(STREAM);
        for r in rest {
            next.extend_from_slice(r);
        }
        let first = self.index;
        let cipher = &self.cipher;
        let last_i = if last { count.checked_sub(1) } else { None };
        let work = |(i, c): (usize, &mut [u8])| {
            let body = c.len() - TAG;
            let (plain, tag) = c.split_at_mut(body);
            let t = cipher.seal(&chunk_nonce(first + i as u64, Some(i) == last_i), plain);
            tag.copy_from_slice(&t);
        };
        // Each chunk is sealed and hashed while it is in cache, on this thread: sealing on the CPU pool queued it
        // behind the chunk encoding that feeds it, and the writes waited for both (one thread seals and hashes
        // about 700 MB/s, more than a drive takes).
        let mut hash = self.hash.as_mut();
        for (i, c) in out.chunks_mut(SEALED).enumerate() {
            work((i, c));
            if let Some(h) = hash.as_mut() {
                h.update(&*c);
            }
        }
        self.index += count as u64;
        self.pending = next;
        if last {
            self.finished = true;
        }
        Ok(len)
    }
}

/// Encrypts one age payload and hashes the file it goes into.
#[napi]
pub struct PayloadSealer {
    serial: Option<Serial>,
    state: Arc<Mutex<SealState>>,
}

#[napi]
impl PayloadSealer {
    /// `payloadKey`: HKDF(file key, nonce, "payload"); `prefix`: the file's
    /// bytes before the payload (age header and nonce), hashed first.
    #[napi(constructor)]
    pub fn new(payload_key: Buffer, prefix: Buffer) -> napi::Result<Self> {
        crate::init();
        let cipher = crate::error::napi_result(payload_cipher(&payload_key))?;
        let mut hash = Sha256::new();
        hash.update(&prefix[..]);
        Ok(PayloadSealer {
            serial: Some(Serial::new("brickpost-seal")),
            state: Arc::new(Mutex::new(SealState { cipher, index: 0, pending: Vec::with_capacity(STREAM), hash: Some(hash), finished: false })),
        })
    }

    /// Seals the chunks `parts` complete, in call order; with `last`, also
    /// the final chunk. Resolves to the ciphertext to append to the file.
    /// The Buffers must not change until it resolves.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn seal(&self, env: Env, parts: Vec<Either<Buffer, ClassInstance<NativeBytes>>>, last: bool) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Buffer>(&env)?;
        let Some(serial) = &self.serial else {
            settle.settle(Err(BpError::new("USAGE", "age payload encryptor used after close")));
            return Ok(p);
        };
        let state = self.state.clone();
        // Native bytes are taken now (they are this call's); Buffers are read in place, kept alive until it settles.
        let mut owned: Vec<Vec<u8>> = Vec::new();
        let mut views: Vec<(usize, usize)> = Vec::with_capacity(parts.len());
        let mut keep: Vec<Buffer> = Vec::new();
        for part in parts {
            match part {
                Either::A(b) => {
                    views.push((b.as_ptr() as usize, b.len()));
                    keep.push(b);
                }
                Either::B(mut nb) => {
                    let v = crate::error::napi_result(nb.take())?;
                    views.push((v.as_ptr() as usize, v.len()));
                    owned.push(v);
                }
            }
        }
        serial.run(move || {
            // SAFETY: `owned` and `keep` hold every viewed byte until the promise settles.
            let slices: Vec<&[u8]> = views.iter().map(|&(ptr, len)| unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }).collect();
            let r = state.lock().unwrap().seal(&slices, last).map(Buffer::from);
            drop(slices);
            drop(owned);
            settle.settle_keeping(r, keep);
        });
        Ok(p)
    }

    /// As seal, but writes the ciphertext into `out` (large enough: see
    /// sealedBound) and resolves to its length; `out` must not be used
    /// until then. Lets the caller reuse a few Buffers instead of making one
    /// per batch for the garbage collector.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn seal_into(&self, env: Env, parts: Vec<Either<Buffer, ClassInstance<NativeBytes>>>, last: bool, out: Buffer) -> napi::Result<JsObject> {
        let (settle, p) = promise::<u32>(&env)?;
        let Some(serial) = &self.serial else {
            settle.settle(Err(BpError::new("USAGE", "age payload encryptor used after close")));
            return Ok(p);
        };
        let state = self.state.clone();
        let mut owned: Vec<Vec<u8>> = Vec::new();
        let mut views: Vec<(usize, usize)> = Vec::with_capacity(parts.len());
        let mut keep: Vec<Buffer> = Vec::new();
        for part in parts {
            match part {
                Either::A(b) => {
                    views.push((b.as_ptr() as usize, b.len()));
                    keep.push(b);
                }
                Either::B(mut nb) => {
                    let v = crate::error::napi_result(nb.take())?;
                    views.push((v.as_ptr() as usize, v.len()));
                    owned.push(v);
                }
            }
        }
        let dst = (out.as_ptr() as usize, out.len());
        keep.push(out);
        serial.run(move || {
            // SAFETY: `owned` and `keep` hold every viewed byte, and `out`, until the promise settles; the caller leaves `out` alone meanwhile.
            let slices: Vec<&[u8]> = views.iter().map(|&(ptr, len)| unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }).collect();
            let o = unsafe { std::slice::from_raw_parts_mut(dst.0 as *mut u8, dst.1) };
            let r = state.lock().unwrap().seal_to(&slices, last, o).map(|n| n as u32);
            drop(slices);
            drop(owned);
            settle.settle_keeping(r, keep);
        });
        Ok(p)
    }

    /// The SHA-256 (hex) of the prefix and all ciphertext, once the last chunk is sealed.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn digest(&mut self, env: Env) -> napi::Result<JsObject> {
        let (settle, p) = promise::<String>(&env)?;
        let state = self.state.clone();
        let job = move || {
            let mut st = state.lock().unwrap();
            let r = match (st.finished, st.hash.take()) {
                (true, Some(h)) => Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect()),
                _ => Err(BpError::new("USAGE", "pack digest asked before its last chunk was sealed")),
            };
            settle.settle(r);
        };
        match self.serial.take() {
            Some(s) => s.run(job),
            None => job(),
        }
        Ok(p)
    }
}
