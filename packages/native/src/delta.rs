//! A chunk coded as a delta against a basis file's signature (the engine's
//! delta/compute.ts, delta/encode.ts and chunk/delta-frame.ts are the
//! reference, and this gives their bytes): rsync's rolling search with the
//! run-continuation preference, the short last block tried only at the
//! end, the budget of failed strong sums against forged signatures and
//! literals flushed at 1 MiB, written straight out as bpdelta1.
//!
//! The reference reads its input in slices of 1 MiB and re-tests the
//! window where a slice or a literal ends; the scan here stops at the same
//! places, so the budget counts the same misses and the ops are the same.

use crate::basis::{parse, Basis, MAX_BLOCKS};
use crate::codec::encode_chunk;
use crate::error::{napi_result, BpError};
use crate::promise::promise;
use crate::sig::weak_sum;
use napi::bindgen_prelude::Buffer;
use napi::{Env, JsObject};
use napi_derive::napi;
use sha2::{Digest, Sha256};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Longest literal op (computeDelta's default maxLiteral).
const MAX_LITERAL: usize = 1 << 20;
/// Bytes computeDelta takes from an input buffer at a time.
const SLICE: usize = 1 << 20;
/// Failed strong sums allowed before the budget starts, then per block of input.
const MISS_SLACK: u64 = 1024;
const MISS_RATE: u64 = 4;
/// RECORD_LIMITS.maxDeltaLength: the longest delta a frame may hold.
pub const MAX_DELTA_LENGTH: usize = (4 << 20) + 65536;
const CHAR_OFFSET: u32 = 31;
const COPY: u8 = 0x01;
const LITERAL: u8 = 0x02;
const END: u8 = 0x00;

/// The first 8 bytes of SHA-256, big-endian, as the signature holds them.
fn strong_sum(data: &[u8]) -> u64 {
    let d = Sha256::digest(data);
    u64::from_be_bytes(d[..8].try_into().unwrap())
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

struct Scan<'a> {
    s: &'a Basis,
    d: &'a [u8],
    /// Start of the window, end of the bytes read so far, start of the pending literal.
    pos: usize,
    end: usize,
    lit: usize,
    misses: u64,
    rolling: bool,
    weak: u32,
    pend_block: usize,
    pend_count: usize,
    out: Vec<u8>,
    copies: bool,
    /// Strong sums computed.
    hashed: u64,
    /// The delta has grown past MAX_DELTA_LENGTH: it will not be used.
    over: bool,
}

/// The bpdelta1 bytes of `d` against `s`, or None when they would hold no
/// copy (nothing of the basis is reused) or be longer than a delta frame
/// may hold.
pub fn compute(s: &Basis, d: &[u8]) -> Option<Vec<u8>> {
    let b = s.block;
    let mut sc = Scan {
        s,
        d,
        pos: 0,
        end: 0,
        lit: 0,
        misses: 0,
        rolling: false,
        weak: 0,
        pend_block: 0,
        pend_count: 0,
        out: b"bpdelta1".to_vec(),
        copies: false,
        hashed: 0,
        over: false,
    };
    let mut read = 0;
    let mut eof = false;
    let mut stuck = false;
    loop {
        if sc.over {
            break;
        }
        if stuck || sc.end - sc.pos < b {
            if eof {
                sc.finish();
                break;
            }
            if read == d.len() {
                eof = true;
                continue;
            }
            let n = (d.len() - read).min(SLICE);
            sc.end += n;
            read += n;
            stuck = false;
            continue;
        }
        match sc.scan() {
            Some(block) => sc.matched(block),
            None if sc.pos - sc.lit >= MAX_LITERAL => sc.flush_literal(sc.pos),
            None => stuck = true,
        }
    }
    s.hashed.fetch_add(sc.hashed, Ordering::Relaxed);
    if sc.over {
        return None;
    }
    sc.out.push(END);
    (sc.copies && sc.out.len() <= MAX_DELTA_LENGTH).then_some(sc.out)
}

impl Scan<'_> {
    fn strong(&mut self, at: usize, len: usize) -> u64 {
        self.hashed += 1;
        strong_sum(&self.d[at..at + len])
    }

    fn stop(&self) -> usize {
        (self.end - self.s.block).min(self.lit + MAX_LITERAL)
    }

    /// Tests the window at pos and rolls it on until a block matches or it
    /// reaches the end of the bytes read or the longest literal.
    fn scan(&mut self) -> Option<usize> {
        let b = self.s.block;
        if !self.rolling {
            if let Some(x) = self.next_in_run() {
                return Some(x);
            }
            self.weak = weak_sum(&self.d[self.pos..self.pos + b]);
            self.rolling = true;
        }
        loop {
            if self.roll() {
                if let Some(x) = self.matches() {
                    return Some(x);
                }
            }
            if self.pos >= self.stop() {
                return None;
            }
            // One byte on (librsync's RollsumRotate).
            let out = u32::from(self.d[self.pos]);
            let inb = u32::from(self.d[self.pos + b]);
            let s1 = self.weak.wrapping_add(inb).wrapping_sub(out) & 0xffff;
            let s2 = (self.weak >> 16).wrapping_add(s1).wrapping_sub((b as u32).wrapping_mul(out + CHAR_OFFSET)) & 0xffff;
            self.weak = (s2 << 16) | s1;
            self.pos += 1;
        }
    }

    /// The hot loop: rolls on until the filter admits the weak sum (true)
    /// or the window can go no further (false).
    fn roll(&mut self) -> bool {
        let b = self.s.block;
        let bm = b as u32;
        let ix = &self.s.index;
        let w = self.d;
        let stop = self.stop();
        let mut pos = self.pos;
        let mut s1 = self.weak & 0xffff;
        let mut s2 = self.weak >> 16;
        let mut hit = false;
        loop {
            let weak = (s2 << 16) | s1;
            if ix.admits(weak) {
                hit = true;
                break;
            }
            if pos >= stop {
                break;
            }
            let out = u32::from(w[pos]);
            s1 = s1.wrapping_add(u32::from(w[pos + b])).wrapping_sub(out) & 0xffff;
            s2 = s2.wrapping_add(s1).wrapping_sub(bm.wrapping_mul(out + CHAR_OFFSET)) & 0xffff;
            pos += 1;
        }
        self.pos = pos;
        self.weak = (s2 << 16) | s1;
        hit
    }

    /// The block that would continue the pending copy run.
    fn expect(&self) -> Option<usize> {
        (self.pend_count > 0).then(|| self.pend_block + self.pend_count).filter(|&e| e < self.s.full)
    }

    /// Right after a copy: the next block of the run if the window holds it (strong sum only).
    fn next_in_run(&mut self) -> Option<usize> {
        let e = self.expect()?;
        (self.strong(self.pos, self.s.block) == self.s.strong[e]).then_some(e)
    }

    /// The block whose sums the window has, the one continuing the run first.
    fn matches(&mut self) -> Option<usize> {
        let s = self.s;
        let b = s.block as u64;
        let adjacent = self.expect().filter(|&e| s.weak[e] == self.weak);
        if adjacent.is_none() && !s.index.has_weak(&s.weak, self.weak) {
            return None;
        }
        // The reference's misses > MISS_SLACK + MISS_RATE · pos / B, multiplied out.
        if self.misses * b > MISS_SLACK * b + MISS_RATE * self.pos as u64 {
            return None;
        }
        let strong = self.strong(self.pos, s.block);
        if let Some(e) = adjacent {
            if s.strong[e] == strong {
                return Some(e);
            }
        }
        let found = s.index.find(&s.weak, &s.strong, self.weak, strong);
        if found.is_none() {
            self.misses += 1;
        }
        found
    }

    fn matched(&mut self, block: usize) {
        if self.pos > self.lit {
            self.flush_literal(self.pos);
        }
        self.add_copy(block);
        self.pos += self.s.block;
        self.lit = self.pos;
        self.rolling = false;
    }

    /// Writes the pending copy, then the pending literal up to `stop` in ops of at most MAX_LITERAL.
    fn flush_literal(&mut self, stop: usize) {
        self.flush_copy();
        let mut a = self.lit;
        while a < stop && !self.over {
            let n = (stop - a).min(MAX_LITERAL);
            self.out.push(LITERAL);
            put_varint(&mut self.out, n as u64);
            self.out.extend_from_slice(&self.d[a..a + n]);
            self.over = self.out.len() >= MAX_DELTA_LENGTH;
            a += n;
        }
        self.lit = stop;
    }

    /// At the end: the basis file's short last block if the data ends with it, then what is left.
    fn finish(&mut self) {
        let s = self.s;
        let tail = (s.file_length % s.block as u64) as usize;
        if tail > 0 && self.end - self.lit >= tail {
            let start = self.end - tail;
            let t = s.count - 1;
            if weak_sum(&self.d[start..self.end]) == s.weak[t] && self.strong(start, tail) == s.strong[t] {
                if start > self.lit {
                    self.flush_literal(start);
                }
                self.add_copy(t);
                self.lit = self.end;
            }
        }
        if self.end > self.lit {
            self.flush_literal(self.end);
        }
        self.flush_copy();
    }

    fn add_copy(&mut self, block: usize) {
        if self.pend_count > 0 && self.pend_block + self.pend_count == block {
            self.pend_count += 1;
            return;
        }
        self.flush_copy();
        self.pend_block = block;
        self.pend_count = 1;
    }

    fn flush_copy(&mut self) {
        if self.pend_count == 0 {
            return;
        }
        self.out.push(COPY);
        put_varint(&mut self.out, self.pend_block as u64);
        put_varint(&mut self.out, self.pend_count as u64);
        self.copies = true;
        self.pend_count = 0;
    }
}

/// A chunk coded as a delta: its frame and the delta's length.
#[napi(object, object_from_js = false)]
pub struct NativeDelta {
    pub frame: Buffer,
    pub delta_length: u32,
}

/// deltaFrame of delta-frame.ts: the delta compressed as any chunk is,
/// kept only when its frame is shorter than `limit`.
fn delta_frame(basis: &Basis, raw: &[u8], level: i32, limit: f64) -> Option<NativeDelta> {
    let delta = compute(basis, raw)?;
    let (frame, _) = encode_chunk(&delta, level);
    ((frame.len() as f64) < limit).then(|| NativeDelta { frame: frame.into(), delta_length: delta.len() as u32 })
}

/// A basis file's signature, parsed once for the deltas of its next
/// version's chunks. Deltas in flight keep what they use: release frees
/// the rest now instead of at garbage collection.
#[napi]
pub struct BasisSignature {
    basis: Option<Arc<Basis>>,
}

#[napi]
impl BasisSignature {
    /// Parses bpsig1 bytes (untrusted): MALFORMED, or LIMIT_EXCEEDED past `maxBlocks` (default 2^24) blocks.
    #[napi(constructor)]
    pub fn new(sig: Buffer, max_blocks: Option<f64>) -> napi::Result<Self> {
        crate::init();
        let max = max_blocks.map_or(MAX_BLOCKS, |m| m.max(0.0) as u64);
        let basis = napi_result(parse(&sig, max))?;
        Ok(BasisSignature { basis: Some(Arc::new(basis)) })
    }

    /// Blocks the signature describes (0 once released).
    #[napi(getter)]
    pub fn block_count(&self) -> u32 {
        self.basis.as_ref().map_or(0, |b| b.count as u32)
    }

    /// Strong sums the deltas against it have computed so far: what a forged signature can cost.
    #[napi(getter)]
    pub fn strong_sums(&self) -> f64 {
        self.basis.as_ref().map_or(0.0, |b| b.hashed.load(Ordering::Relaxed) as f64)
    }

    /// Codes chunk `raw` as a delta on the CPU pool, compressed at `level`
    /// (checked by the caller): null when it reuses nothing of the basis, is
    /// longer than a delta frame may hold, or its frame is not shorter than
    /// `limit`. `raw` must not change until it resolves.
    #[napi(ts_return_type = "Promise<NativeDelta | null>")]
    pub fn delta(&self, env: Env, raw: Buffer, level: i32, limit: f64) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Option<NativeDelta>>(&env)?;
        let Some(basis) = self.basis.clone() else {
            settle.settle(Err(BpError::new("USAGE", "basis signature used after release")));
            return Ok(p);
        };
        let (ptr, len) = (raw.as_ptr() as usize, raw.len());
        rayon::spawn(move || {
            // SAFETY: `raw` is kept alive, and unchanged by contract, until the promise settles.
            let data: &[u8] = if len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(ptr as *const u8, len) } };
            let r = delta_frame(&basis, data, level, limit);
            settle.settle_keeping(Ok(r), raw);
        });
        Ok(p)
    }

    /// Frees the parsed signature (deltas in flight finish first).
    #[napi]
    pub fn release(&mut self) {
        self.basis = None;
    }
}
