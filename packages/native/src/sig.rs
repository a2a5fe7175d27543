//! bpsig1 signatures (the engine's delta/signature.ts is the reference):
//! per block of B bytes, librsync's rollsum ("rrs0", character offset 31)
//! and the first 8 bytes of SHA-256, after a 20-byte header.

use rayon::prelude::*;
use sha2::{Digest, Sha256};

const CHAR_OFFSET: u32 = 31;
const ENTRY: usize = 12;

/// librsync's weak sum of one block, as weakSum in sums.ts.
pub fn weak_sum(data: &[u8]) -> u32 {
    let mut s1: u32 = 0;
    let mut s2: u32 = 0;
    for &b in data {
        s1 = s1.wrapping_add(b as u32);
        s2 = s2.wrapping_add(s1);
    }
    let len = data.len() as u32;
    let s1 = s1.wrapping_add(len.wrapping_mul(CHAR_OFFSET)) & 0xffff;
    let tri = if len % 2 == 0 { (len >> 1).wrapping_mul(len.wrapping_add(1)) } else { len.wrapping_mul((len.wrapping_add(1)) >> 1) };
    let s2 = s2.wrapping_add(tri.wrapping_mul(CHAR_OFFSET)) & 0xffff;
    (s2 << 16) | s1
}

/// Blocks of one update from which the sums are computed on the CPU pool.
const PARALLEL_BLOCKS: usize = 64;

/// One block's signature entry: weak sum, then the first 8 bytes of its SHA-256.
fn entry(data: &[u8]) -> [u8; ENTRY] {
    let mut e = [0u8; ENTRY];
    e[..4].copy_from_slice(&weak_sum(data).to_be_bytes());
    e[4..].copy_from_slice(&Sha256::digest(data)[..8]);
    e
}

/// Streams a file's bytes in and produces its bpsig1 signature.
pub struct SignatureBuilder {
    block: usize,
    partial: Vec<u8>,
    out: Vec<u8>,
    length: u64,
}

impl SignatureBuilder {
    /// `block` must be a power of two in [2^8, 2^20] (checked by the caller).
    pub fn new(block: usize) -> Self {
        SignatureBuilder { block, partial: Vec::with_capacity(block), out: Vec::new(), length: 0 }
    }

    fn add_block(&mut self, data: &[u8]) {
        self.out.extend_from_slice(&entry(data));
    }

    pub fn update(&mut self, mut buf: &[u8]) {
        self.length += buf.len() as u64;
        let b = self.block;
        if !self.partial.is_empty() {
            let n = (b - self.partial.len()).min(buf.len());
            self.partial.extend_from_slice(&buf[..n]);
            buf = &buf[n..];
            if self.partial.len() < b {
                return;
            }
            let p = std::mem::take(&mut self.partial);
            self.add_block(&p);
            self.partial = p;
            self.partial.clear();
        }
        let whole = buf.len() / b * b;
        if whole / b >= PARALLEL_BLOCKS {
            // A large file's batch: its blocks are summed on the CPU pool, not on the file's own thread,
            // which then reads and cuts the next batch the sooner.
            let entries: Vec<[u8; ENTRY]> = buf[..whole].par_chunks_exact(b).map(entry).collect();
            self.out.reserve(entries.len() * ENTRY);
            entries.iter().for_each(|e| self.out.extend_from_slice(e));
        } else {
            self.out.reserve(whole / b * ENTRY);
            buf[..whole].chunks_exact(b).for_each(|block| self.out.extend_from_slice(&entry(block)));
        }
        self.partial.extend_from_slice(&buf[whole..]);
    }

    pub fn finish(mut self) -> Vec<u8> {
        if !self.partial.is_empty() {
            let p = std::mem::take(&mut self.partial);
            self.add_block(&p);
        }
        let mut sig = Vec::with_capacity(20 + self.out.len());
        sig.extend_from_slice(b"bpsig1");
        sig.push(1);
        sig.push(8);
        sig.extend_from_slice(&(self.block as u32).to_be_bytes());
        sig.extend_from_slice(&self.length.to_be_bytes());
        sig.extend_from_slice(&self.out);
        sig
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_of_empty_and_zeros() {
        assert_eq!(weak_sum(&[]), 0);
        // s1 = 4·31 = 124, s2 = 31·(4·5/2) = 310.
        assert_eq!(weak_sum(&[0, 0, 0, 0]), (310 << 16) | 124);
    }
}
