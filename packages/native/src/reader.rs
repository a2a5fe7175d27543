//! Pack reading at deep verify and ingest (the engine's verify/pack-cursor.ts
//! and the manifest's age/decryptor.ts and range.ts are the reference): a
//! pack is read front to back once, by the pack's own thread, hashing every
//! byte for its fixity check while the CPU pool opens its STREAM chunks;
//! the chunk frames asked for are then decoded and checked against their
//! keyed ids on the pool. A read behind the cursor (a frame deduplicated
//! against an earlier one) decrypts only the STREAM chunks that cover it.
//! Authentication follows the streaming decryptor exactly: a full chunk is
//! first opened as a non-final chunk, and only when that fails as the final
//! one; every byte released has passed its tag.

use crate::codec::{decode_chunk, decode_frame, id_mac, HmacSha256};
use crate::error::{BpError, BpResult};
use crate::promise::promise;
use crate::seal::{chunk_nonce, payload_cipher, SEALED, STREAM, TAG};
use crate::serial::Serial;
// Rule of this module: pool (rayon) threads never block on a pack's thread; the pack's thread may wait for the pool.
use crate::aead::Cipher;
use crate::bytes::NativeBytes;
use napi::bindgen_prelude::Buffer;
use napi::{Env, JsObject};
use napi_derive::napi;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::FromRawFd;
use std::sync::{Arc, Mutex};

/// STREAM chunks read per block: 2 MiB of plaintext.
const CHUNKS_PER_BLOCK: usize = 32;

fn corrupt(index: u64) -> BpError {
    BpError::new("PAYLOAD_CORRUPT", format!("age payload chunk {index} fails authentication")).with_hint("the encrypted file was damaged or modified")
}

fn open_chunk(cipher: &Cipher, index: u64, last: bool, sealed: &mut [u8]) -> bool {
    if sealed.len() < TAG {
        return false;
    }
    let body = sealed.len() - TAG;
    let (plain, tag) = sealed.split_at_mut(body);
    let tag: [u8; TAG] = (&*tag).try_into().expect("a tag's length");
    cipher.open(&chunk_nonce(index, last), plain, &tag)
}

/// plainSize of range.ts: the plaintext size of `sealed` bytes of STREAM chunks.
fn plain_size(sealed: u64) -> BpResult<u64> {
    if sealed < TAG as u64 {
        return Err(BpError::new("TRUNCATED", format!("age payload is {sealed} bytes, too short for one chunk")));
    }
    let chunks = sealed.div_ceil(SEALED as u64);
    let last_len = sealed - (chunks - 1) * SEALED as u64;
    if last_len < TAG as u64 || (last_len == TAG as u64 && chunks > 1) {
        return Err(BpError::new("MALFORMED", format!("age payload size {sealed} leaves a final chunk of {last_len} bytes")));
    }
    Ok(sealed - chunks * TAG as u64)
}

struct Cursor {
    file: File,
    size: u64,
    payload_start: u64,
    cipher: Cipher,
    hash: Sha256,
    /// Next file offset to read; the header is hashed first.
    file_pos: u64,
    /// Decrypted plaintext not yet taken: plain[off..], starting at plaintext offset `plain_pos`.
    plain: Vec<u8>,
    off: usize,
    plain_pos: u64,
    index: u64,
    final_done: bool,
    /// The first problem met reading ahead, raised once the plaintext before it is used up.
    failed: Option<BpError>,
    /// Read and decryption buffers, reused from block to block.
    block: Vec<u8>,
    work: Vec<u8>,
}

impl Cursor {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> BpResult<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.file.read_at(&mut buf[got..], at + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(BpError::io(&e, "cannot read the pack")),
            }
        }
        Ok(got)
    }

    fn queued(&self) -> usize {
        self.plain.len() - self.off
    }

    /// Reads, hashes and decrypts the next block; false at the end.
    fn fill(&mut self) -> BpResult<bool> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.final_done {
            return Ok(false);
        }
        if self.file_pos < self.payload_start {
            let mut head = vec![0u8; self.payload_start as usize];
            let n = self.read_exact_at(&mut head, 0)?;
            if n < head.len() {
                return Err(BpError::new("TRUNCATED", "pack shrank while being read"));
            }
            self.hash.update(&head);
            self.file_pos = self.payload_start;
        }
        if self.file_pos >= self.size {
            // Every chunk so far opened as a non-final chunk, and nothing follows.
            let e = BpError::new("TRUNCATED", format!("age payload ends without a final chunk, after {} chunks", self.index)).with_hint("the encrypted file was cut short");
            self.failed = Some(e.clone());
            return Err(e);
        }
        let want = ((self.size - self.file_pos) as usize).min(CHUNKS_PER_BLOCK * SEALED);
        let mut block = std::mem::take(&mut self.block);
        block.resize(want, 0);
        let n = self.read_exact_at(&mut block, self.file_pos)?;
        if n == 0 {
            return Err(BpError::new("TRUNCATED", "pack shrank while being read"));
        }
        block.truncate(n);
        self.file_pos += n as u64;
        let at_end = self.file_pos >= self.size;
        // The hash runs beside the decryption, which works on a copy laid out without tags.
        if self.off > 0 {
            self.plain.drain(..self.off);
            self.off = 0;
        }
        let base = self.plain.len();
        let full = n / SEALED;
        let rem = n % SEALED;
        let first = self.index;
        let cipher = self.cipher.clone();
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.extend_from_slice(&block);
        let hash = &mut self.hash;
        let (_, ok) = rayon::join(
            || hash.update(&block),
            || -> Vec<bool> { work[..full * SEALED].par_chunks_mut(SEALED).enumerate().map(|(i, c)| open_chunk(&cipher, first + i as u64, false, c)).collect() },
        );
        self.block = block;
        let r = self.open_block(&mut work, &ok, full, rem, at_end, base);
        self.work = work;
        r
    }

    /// Releases the plaintext of a decrypted block, authenticating as the streaming decryptor does.
    fn open_block(&mut self, work: &mut [u8], ok: &[bool], full: usize, rem: usize, at_end: bool, base: usize) -> BpResult<bool> {
        for (i, good) in ok.iter().enumerate() {
            let c = &mut work[i * SEALED..(i + 1) * SEALED];
            if *good {
                self.plain.extend_from_slice(&c[..STREAM]);
                self.index += 1;
                continue;
            }
            let more = i + 1 < full || rem > 0 || !at_end;
            if open_chunk(&self.cipher, self.index, true, c) {
                self.plain.extend_from_slice(&c[..STREAM]);
                self.index += 1;
                if more {
                    self.failed = Some(BpError::new("MALFORMED", format!("age payload has data after its final chunk {}", self.index - 1)));
                } else {
                    self.final_done = true;
                }
            } else {
                self.failed = Some(corrupt(self.index));
            }
            return self.outcome(base);
        }
        if rem > 0 {
            // Blocks hold whole chunks, so a short one ends the file.
            let c = &mut work[full * SEALED..];
            if rem < TAG {
                self.failed = Some(BpError::new("TRUNCATED", format!("age payload chunk {} is {rem} bytes, shorter than its tag", self.index)));
            } else if rem == TAG && self.index > 0 {
                self.failed = Some(BpError::new("MALFORMED", format!("age payload final chunk {} is empty", self.index)));
            } else if open_chunk(&self.cipher, self.index, true, c) {
                self.plain.extend_from_slice(&c[..rem - TAG]);
                self.index += 1;
                self.final_done = true;
            } else {
                self.failed = Some(corrupt(self.index));
            }
        } else if at_end && !self.final_done {
            self.failed = Some(BpError::new("TRUNCATED", format!("age payload ends without a final chunk, after {} chunks", self.index)).with_hint("the encrypted file was cut short"));
        }
        self.outcome(base)
    }

    /// After a block: true when it released plaintext, the problem met if it released none.
    fn outcome(&self, base: usize) -> BpResult<bool> {
        if self.plain.len() > base {
            return Ok(true);
        }
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(false),
        }
    }

    /// `len` plaintext bytes at `offset`, at or after the cursor (PackCursor.read).
    fn read_ahead(&mut self, offset: u64, len: usize) -> BpResult<Vec<u8>> {
        while offset > self.plain_pos {
            if self.queued() == 0 && !self.fill()? {
                return Err(BpError::new("TRUNCATED", format!("pack ends before plaintext offset {}", offset + len as u64)));
            }
            let k = (self.queued() as u64).min(offset - self.plain_pos) as usize;
            self.off += k;
            self.plain_pos += k as u64;
        }
        while self.queued() < len {
            if !self.fill()? {
                return Err(BpError::new("TRUNCATED", format!("pack ends before plaintext offset {}", offset + len as u64)));
            }
        }
        let mut out = crate::recycle::take(len);
        out.extend_from_slice(&self.plain[self.off..self.off + len]);
        self.off += len;
        self.plain_pos += len as u64;
        Ok(out)
    }

    /// `len` plaintext bytes anywhere (range.ts readPlainRange), without moving the cursor.
    fn read_range(&self, offset: u64, len: usize) -> BpResult<Vec<u8>> {
        let sealed = self.size.saturating_sub(self.payload_start);
        let total = plain_size(sealed)?;
        if offset + len as u64 > total {
            return Err(BpError::new("TRUNCATED", format!("age payload range {offset}+{len} runs past its end at {total}")));
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        let last_chunk = sealed.div_ceil(SEALED as u64) - 1;
        let first = offset / STREAM as u64;
        let end = (offset + len as u64 - 1) / STREAM as u64;
        let read_start = first * SEALED as u64;
        let read_len = (((end + 1) * SEALED as u64).min(sealed) - read_start) as usize;
        let mut buf = vec![0u8; read_len];
        let got = self.read_exact_at(&mut buf, self.payload_start + read_start)?;
        if got < read_len {
            return Err(BpError::new("TRUNCATED", format!("age payload read returned {got} of {read_len} bytes at {}", self.payload_start + read_start)));
        }
        let mut out = Vec::with_capacity(len);
        for i in first..=end {
            let at = ((i - first) as usize) * SEALED;
            let c = &mut buf[at..(at + SEALED).min(read_len)];
            if !open_chunk(&self.cipher, i, i == last_chunk, c) {
                return Err(corrupt(i));
            }
            let body = c.len() - TAG;
            let from = if i == first { (offset - first * STREAM as u64) as usize } else { 0 };
            let to = body.min((offset + len as u64 - i * STREAM as u64) as usize);
            out.extend_from_slice(&c[from..to]);
        }
        Ok(out)
    }

    fn read(&mut self, offset: u64, len: usize) -> BpResult<Vec<u8>> {
        if offset < self.plain_pos {
            self.read_range(offset, len)
        } else {
            self.read_ahead(offset, len)
        }
    }

    /// Reads to the end; the plaintext size and the file's SHA-256.
    fn finish(&mut self) -> BpResult<(u64, String)> {
        loop {
            self.plain_pos += self.queued() as u64;
            self.plain.clear();
            self.off = 0;
            if !self.fill()? {
                break;
            }
        }
        self.plain_pos += self.queued() as u64;
        self.release();
        let h = std::mem::replace(&mut self.hash, Sha256::new());
        Ok((self.plain_pos, h.finalize().iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// Frees the read-ahead buffers now, not when JavaScript collects the reader.
    fn release(&mut self) {
        self.plain = Vec::new();
        self.off = 0;
        self.block = Vec::new();
        self.work = Vec::new();
    }
}

/// The plaintext size and SHA-256 of a pack read to its end.
#[napi(object)]
pub struct PackEnd {
    pub plain: f64,
    pub sha256: String,
}

/// One pack's reader: its own thread reads (and hashes) it; the CPU pool decrypts and decodes.
#[napi]
pub struct PackReader {
    serial: Option<Serial>,
    cursor: Arc<Mutex<Cursor>>,
    mac: HmacSha256,
}

#[napi]
impl PackReader {
    /// `fd`: the pack, open for reading (duplicated here; the caller closes
    /// its own); `size`: its size; `payloadStart`: where its first sealed
    /// chunk starts; `payloadKey`: HKDF(file key, nonce, "payload");
    /// `chunkKey`: the chunk-id key.
    #[napi(constructor)]
    pub fn new(fd: i32, size: f64, payload_start: f64, payload_key: Buffer, chunk_key: Buffer) -> napi::Result<Self> {
        crate::init();
        let cipher = crate::error::napi_result(payload_cipher(&payload_key))?;
        // SAFETY: dup returns a new descriptor that this File owns alone.
        let dup = unsafe { libc::dup(fd) };
        if dup < 0 {
            return Err(BpError::io(&std::io::Error::last_os_error(), "cannot duplicate the pack's descriptor").into());
        }
        let file = unsafe { File::from_raw_fd(dup) };
        let cursor = Cursor {
            file,
            size: size as u64,
            payload_start: payload_start as u64,
            cipher,
            hash: Sha256::new(),
            file_pos: 0,
            plain: Vec::new(),
            off: 0,
            plain_pos: 0,
            index: 0,
            final_done: false,
            failed: None,
            block: Vec::new(),
            work: Vec::new(),
        };
        Ok(PackReader { serial: Some(Serial::new("brickpost-pack")), cursor: Arc::new(Mutex::new(cursor)), mac: id_mac(&chunk_key) })
    }

    fn queue(&self, job: impl FnOnce(&mut Cursor) + Send + 'static) -> BpResult<()> {
        let Some(serial) = &self.serial else {
            return Err(BpError::new("USAGE", "pack reader used after close"));
        };
        let c = self.cursor.clone();
        serial.run(move || job(&mut c.lock().unwrap()));
        Ok(())
    }

    /// `length` plaintext bytes at `offset` (behind the cursor: read where they are).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn read_plain(&self, env: Env, offset: f64, length: u32) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Buffer>(&env)?;
        // Settled from the pack's thread: a pool thread never waits for it (the pack's thread may be waiting for the pool).
        self.queue(move |c| settle.settle(c.read(offset as u64, length as usize).map(Buffer::from)))?;
        Ok(p)
    }

    /// The verified bytes of chunks [offset, frame length, length] read in
    /// order (`random`: each where it is, the cursor unmoved). A frame of
    /// `delta` is decoded to its length (at most `maxDelta`) without an id
    /// check; any other is checked against its id (32 bytes each in `ids`).
    /// Each comes back held natively, or as null unless `keep`.
    #[napi(ts_return_type = "Promise<Array<NativeBytes | null>>")]
    #[allow(clippy::too_many_arguments)]
    pub fn read_chunks(
        &self,
        env: Env,
        offsets: Vec<f64>,
        frame_lengths: Vec<u32>,
        lengths: Vec<f64>,
        ids: Buffer,
        delta: Vec<bool>,
        random: bool,
        keep: bool,
        max_chunk: f64,
        max_delta: f64,
    ) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Vec<Option<NativeBytes>>>(&env)?;
        let ids = ids.to_vec();
        let mac = self.mac.clone();
        self.queue(move |c| {
            let mut frames = Vec::with_capacity(offsets.len());
            let mut err = None;
            for (i, &off) in offsets.iter().enumerate() {
                let r = if random { c.read_range(off as u64, frame_lengths[i] as usize) } else { c.read(off as u64, frame_lengths[i] as usize) };
                match r {
                    Ok(f) => frames.push(f),
                    Err(e) => {
                        err = Some(e.at(i));
                        break;
                    }
                }
            }
            rayon::spawn(move || {
                let decoded: Vec<BpResult<Option<NativeBytes>>> = frames
                    .par_iter()
                    .enumerate()
                    .map(|(i, f)| {
                        // Unapplied, a delta is checked only as a frame here; either is kept natively until read (writeTo, moveInto).
                        let bytes = if delta[i] {
                            decode_frame(f, lengths[i] as u64, max_delta as u64)
                        } else {
                            decode_chunk(f, lengths[i] as u64, &ids[i * 32..i * 32 + 32], &mac, max_chunk as u64)
                        };
                        bytes
                            .map(|v| {
                                if keep {
                                    Some(NativeBytes::new(v))
                                } else {
                                    crate::recycle::give(v);
                                    None
                                }
                            })
                            .map_err(|e| e.at(i))
                    })
                    .collect();
                frames.into_iter().for_each(crate::recycle::give);
                let mut out = Vec::with_capacity(decoded.len());
                for d in decoded {
                    match d {
                        Ok(v) => out.push(v),
                        Err(e) => return settle.settle(Err(e)),
                    }
                }
                match err {
                    Some(e) => settle.settle(Err(e)),
                    None => settle.settle(Ok(out)),
                }
            });
        })?;
        Ok(p)
    }

    /// Reads the pack to its end: its plaintext size and SHA-256 (hex).
    #[napi(ts_return_type = "Promise<PackEnd>")]
    pub fn finish(&self, env: Env) -> napi::Result<JsObject> {
        let (settle, p) = promise::<PackEnd>(&env)?;
        self.queue(move |c| settle.settle(c.finish().map(|(plain, sha256)| PackEnd { plain: plain as f64, sha256 })))?;
        Ok(p)
    }

    /// Closes the pack once the calls made so far are answered, and frees its buffers.
    #[napi]
    pub fn close(&mut self) {
        if let Some(s) = self.serial.take() {
            let c = self.cursor.clone();
            s.run(move || c.lock().unwrap().release());
        }
    }
}
